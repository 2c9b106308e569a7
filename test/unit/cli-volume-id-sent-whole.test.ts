/** A volume id is sent as one path segment: characters such as `?`, `#` or `/` cannot make it name another record or route. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI volume ids in the request path', () => {
  const h = cliHarness();

  it.each([
    ['data-01?x', 'data-01%3Fx'],
    ['data-01#x', 'data-01%23x'],
    ['data-01/retry', 'data-01%2Fretry'],
  ])('sends %s encoded, which the API refuses as an id, not the record data-01', async (id, encoded) => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    const run = await h.cli(['volumes', 'get', id]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: 400 The request is not valid: the path is not valid');
    expect(h.sent.at(-1)?.url).toBe(`${h.url}/volumes/${encoded}`);
  });
});
