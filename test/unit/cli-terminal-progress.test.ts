/** `wait` on a terminal: a spinner on stderr, ending on the verdict, with the hint after a failure. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait on a terminal', () => {
  const h = cliHarness();
  /** What reached stderr, from the spinner (the process's stream) and from the CLI, in order. */
  let stderr: string[] = [];
  const onTerminal = () => {
    stderr = [];
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      stderr.push(String(chunk));
      return true;
    });
    return { isTTY: true, stderr: (text: string) => void stderr.push(text) };
  };
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('ends the spinner on the state reached', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    h.clock.onSleep = async () => void (await h.setVolumeState('data-01', 'available'));
    const run = await h.cli(['wait', 'data-01', '--state', 'available'], onTerminal());
    vi.restoreAllMocks();
    expect(run.code).toBe(EXIT.ok);
    expect(stderr.filter((text) => text.trim() !== '').at(-1)).toMatch(/^\S+ volume data-01 is available \(after 2s\)\n$/);
    // The plain lines of a log are not printed beside the spinner.
    expect(stderr.join('')).not.toContain('done:');
  });

  it('ends the spinner on why the wait failed, then says what to do', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    await h.setVolumeState('data-01', 'error', { code: 'InsufficientVolumeCapacity', message: 'no capacity in us-east-1a', attempts: 1 });
    const run = await h.cli(['wait', 'data-01', '--state', 'available'], onTerminal());
    vi.restoreAllMocks();
    expect(run.code).toBe(EXIT.errorState);
    const written = stderr.filter((text) => text.trim() !== '');
    expect(written.at(-2)).toMatch(/^\S+ volume data-01 failed: no capacity in us-east-1a\n$/);
    expect(written.at(-1)).toBe('hint: fix what the error names, then `ebs-provisioner volumes retry data-01` (a spec field EC2 refused is put right with `ebs-provisioner volumes modify data-01`, which retries too)\n');
  });
});
