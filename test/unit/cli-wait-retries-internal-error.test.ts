/** `wait` tries a look again after any 5xx, 500 included, and stops at the first other error. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait through an internal error', () => {
  const h = cliHarness();

  it('polls on through a 500 and ends once the volume reaches the state (exit 0)', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    const answers = [() => new Response(null, { status: 500, statusText: 'Internal Server Error' })];
    h.answer = () => answers.shift()?.();
    h.clock.onSleep = async () => void (answers.length === 0 && (await h.setVolumeState('data-01', 'available')));
    const run = await h.cli(['wait', 'data-01', '--state', 'available']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.trim().split('\n')).toEqual([
      'volume data-01: the API answered 500 Internal Server Error; trying again',
      'done: volume data-01 is available (after 2s)',
    ]);
  });
});
