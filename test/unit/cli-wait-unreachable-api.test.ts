/** `wait` against an API it cannot reach: a failed request (exit 1), not a wait that timed out (exit 3). */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait with the API unreachable', () => {
  const h = cliHarness();
  const refused = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:3000') }));

  it('fails as the API unreachable at its deadline too (--timeout 0), not as a timeout', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    h.answer = refused;
    const run = await h.cli(['wait', 'data-01', '--state', 'available', '--timeout', '0']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toContain('error: cannot reach the API at ');
    expect(run.stderr).toContain('connect ECONNREFUSED 127.0.0.1:3000');
    expect(run.stderr).not.toContain('after 0s');
  });

  it('fails at once, before its deadline, without polling on', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    h.answer = refused;
    const before = h.sent.length;
    const run = await h.cli(['wait', 'data-01', '--state', 'available', '--timeout', '60']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toContain('error: cannot reach the API at ');
    expect(h.sent.length - before).toBe(1);
  });
});
