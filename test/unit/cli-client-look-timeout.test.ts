/** A client bounded again with `withTimeout` keeps the shorter of the two bounds. */
import { describe, expect, it } from 'vitest';
import { ApiClient, ConnectionError } from '../../cli/client.js';

/** A fetch whose every request runs out of its time, as AbortSignal.timeout ends it. */
const timingOut: typeof fetch = () => Promise.reject(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));

async function failure(client: ApiClient): Promise<ConnectionError> {
  const error = await client.getVolume('data-01').then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ConnectionError);
  return error as ConnectionError;
}

describe('ApiClient.withTimeout', () => {
  const endpoint = 'http://127.0.0.1:3000';

  it("keeps the client's own bound when the one given is longer", async () => {
    const client = new ApiClient({ endpoint, fetch: timingOut, timeoutMs: 1000 }).withTimeout(60_000);
    const error = await failure(client);
    expect(error.timedOut).toBe(true);
    expect(error.message).toContain('did not answer GET /volumes/data-01 within 1 s');
  });

  it('takes the one given when it is shorter, and bounds by 30 s by default', async () => {
    expect((await failure(new ApiClient({ endpoint, fetch: timingOut }).withTimeout(5000))).message).toContain('within 5 s');
    expect((await failure(new ApiClient({ endpoint, fetch: timingOut }).withTimeout(600_000))).message).toContain('within 30 s');
  });
});
