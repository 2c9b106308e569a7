/**
 * `wait --help`: "A look is given no more than the time left before the timeout (at least 5 s)".
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait: the time each look is given', () => {
  const h = cliHarness();
  afterEach(() => vi.restoreAllMocks());

  it('gives the one look of --timeout 0 five seconds, and ends as a timeout (exit 3) when it is not answered', async () => {
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    const run = await h.cli(['wait', 'data-01', '--state', 'available', '--timeout', '0'], {
      fetch: () => Promise.reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    });
    expect(run.code).toBe(EXIT.timeout);
    expect(timeouts.mock.calls).toEqual([[5000]]);
  });

  it('gives a look the time left before the timeout when that is more than five seconds', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    await h.setVolumeState('data-01', 'available');
    const timeouts = vi.spyOn(AbortSignal, 'timeout');
    const run = await h.cli(['wait', 'data-01', '--state', 'available', '--timeout', '20']);
    expect(run.code).toBe(EXIT.ok);
    expect(timeouts.mock.calls).toEqual([[20_000]]);
  });
});
