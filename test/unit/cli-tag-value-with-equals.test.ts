/** A tag is key=value: the key ends at the first `=`, and the value keeps any later ones. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('a tag whose value holds =', () => {
  const h = cliHarness();

  it('is sent with its whole value, split at the first =', async () => {
    const run = await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--tag', 'expr=x=y+1', '--tag', 'empty=']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    const created = h.sent.find((request) => request.method === 'POST' || request.method === 'PUT');
    expect(created?.body).toMatchObject({ spec: { tags: { expr: 'x=y+1', empty: '' } } });
  });
});
