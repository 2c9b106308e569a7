/**
 * API Gateway's own 502 (`{"message": "Internal server error"}`): the function ran and failed or ran
 * out of its time, so a write of any method may have been stored (README: read the record before
 * repeating it); only a read is safe to retry.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

const MAY_HAVE_BEEN_MADE =
  'error: 502: Internal server error: the API function failed or did not finish in time; the change may have been made: read the record before repeating it\n';

describe("CLI and API Gateway's 502 after a write", () => {
  const h = cliHarness();

  it.each([
    ['PATCH', ['volumes', 'modify', 'data-01', '--size', '30']],
    ['PUT', ['volumes', 'attach', 'data-01', 'i-0123456789abcdef0']],
    ['DELETE', ['volumes', 'delete', 'data-01']],
    ['DELETE', ['volumes', 'detach', 'data-01', 'i-0123456789abcdef0']],
    ['POST', ['volumes', 'retry', 'data-01']],
  ])('says a %s (%j) may have been made', async (method, argv) => {
    h.answer = (request) =>
      request.method === method ? new Response('{"message": "Internal server error"}', { status: 502, headers: { 'content-type': 'application/json' } }) : undefined;
    const run = await h.cli(argv);
    expect(h.sent.map((request) => request.method)).toEqual([method]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe(MAY_HAVE_BEEN_MADE);
  });
});
