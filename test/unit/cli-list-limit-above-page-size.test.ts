/**
 * `volumes list --limit` takes any positive count ("show at most this many") and the CLI follows the
 * API's cursors to reach it, while each request asks the API for no more than its page limit (100).
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI volumes list --limit above the API page limit', () => {
  const h = cliHarness();

  it('asks for pages of at most 100 and lists what there is', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '10', '--id', 'data-01']);
    h.sent = [];
    const run = await h.cli(['-o', 'json', 'volumes', 'list', '--limit', '150']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(EXIT.ok);
    expect((run.json as { items: Array<{ volumeId: string }> }).items.map((item) => item.volumeId)).toEqual(['data-01']);
    expect(h.sent.map((request) => new URL(request.url).searchParams.get('limit'))).toEqual(['100']);
  });
});
