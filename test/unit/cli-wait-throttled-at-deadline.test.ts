/** A `wait` whose looks are throttled near its deadline still ends at its `--timeout`, not an interval later. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait throttled near its deadline', () => {
  const h = cliHarness();

  it('looks again at the timeout when the next interval would pass it, and times out there (exit 3)', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    const throttled = () => new Response('{"message":"Too Many Requests"}', { status: 429, headers: { 'content-type': 'application/json' } });
    const unavailable = () => new Response(null, { status: 503, statusText: 'Service Unavailable' });
    const answers = [throttled, unavailable];
    h.answer = () => answers.shift()?.();
    const started = h.clock.now();
    const run = await h.cli(['wait', 'data-01', '--state', 'available', '--timeout', '3', '--interval', '2']);
    expect(run.code).toBe(EXIT.timeout);
    expect(h.clock.now() - started).toBe(3000);
    expect(run.stderr.trim().split('\n')).toEqual([
      'volume data-01: the API answered 429 Too Many Requests; trying again',
      'volume data-01: the API answered 503 Service Unavailable; trying again',
      'failed: volume data-01 is still pending after 3s; wanted available',
      'hint: wait again, or with a longer --timeout; `ebs-provisioner volumes get data-01` shows the status',
    ]);
  });
});
