/**
 * A JSON error from another server at the endpoint is no problem document unless it has one's
 * `status` and `title`: it is printed as it came, after the question an HTML error page gets too.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe("CLI and another server's JSON error", () => {
  const h = cliHarness();

  it('prints a body with a numeric status but no title as it came, with its HTTP status and the endpoint questioned, not as a problem', async () => {
    const body = JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', status: 404, error: 'Not Found', path: '/v1/volumes/data-01' });
    h.answer = () => new Response(body, { status: 404, headers: { 'content-type': 'application/json' } });
    const run = await h.cli(['volumes', 'get', 'data-01']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe(
      `error: 404: GET ${h.url}/volumes/data-01 answered 404 with application/json, not the provisioner API's JSON: is ${h.url} its URL? It answered: ${body}\n`,
    );
  });
});
