/** An answer whose body stops coming: the time runs out, or the connection drops, after the status and headers. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

/** A 200 JSON answer whose body fails with `error` after its first bytes, as fetch reports it. */
function cutShort(error: Error): Response {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent) return controller.error(error);
      sent = true;
      controller.enqueue(new TextEncoder().encode('{"volumeId": "data-'));
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'application/json' } });
}

const timeout = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

describe('CLI answers cut short', () => {
  const h = cliHarness();

  it('says a write whose answer did not come in time may have been made, as when no answer came at all', async () => {
    h.answer = () => cutShort(timeout());
    const run = await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe(`error: the API at ${h.url} did not answer POST /volumes within 30 s; the change may have been made: read the record before repeating it\n`);
  });

  it('says a write whose answer was cut off may have been made', async () => {
    h.answer = () => cutShort(new TypeError('terminated', { cause: new Error('other side closed') }));
    const write = await h.cli(['volumes', 'delete', 'data-01']);
    expect(write.code).toBe(EXIT.failed);
    expect(write.stderr).toBe(`error: the answer of the API at ${h.url} to DELETE /volumes/data-01 was cut off (other side closed); the change may have been made: read the record before repeating it\n`);
    const read = await h.cli(['volumes', 'get', 'data-01']);
    expect(read.stderr).toBe(`error: the answer of the API at ${h.url} to GET /volumes/data-01 was cut off (other side closed); nothing was changed: try again\n`);
  });

  it('lets wait look again after an answer that did not come in time', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    let cut = 1;
    h.answer = () => (cut-- > 0 ? cutShort(timeout()) : undefined);
    h.clock.onSleep = async () => void (await h.setVolumeState('data-01', 'available'));
    const run = await h.cli(['wait', 'data-01', '--state', 'available']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.trim().split('\n')).toEqual(['volume data-01: the API did not answer in time; trying again', 'done: volume data-01 is available (after 2s)']);
  });

  describe('a look of wait bounded by the time left before its deadline', () => {
    afterEach(() => void vi.restoreAllMocks());
    /** The time each request was given (fetch is answered at once below: only the bounds are real). */
    const bounds = () => {
      const given: number[] = [];
      const timeoutOf = AbortSignal.timeout.bind(AbortSignal);
      vi.spyOn(AbortSignal, 'timeout').mockImplementation((ms) => (given.push(ms), timeoutOf(ms)));
      return given;
    };

    it('ends at --timeout as a timeout (exit 3), not after the 30 s a request is otherwise given, when the API never answers', async () => {
      await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
      h.answer = () => Promise.reject(timeout());
      const given = bounds();
      const run = await h.cli(['wait', 'data-01', '--state', 'available', '--timeout', '12', '--interval', '4']);
      expect(run.code).toBe(EXIT.timeout);
      // Looks at 0 and 4 s get what is left; at 8 s and at the deadline, the 5 s floor.
      expect(given).toEqual([12000, 8000, 5000, 5000]);
      expect(run.stderr.trim().split('\n').at(-2)).toBe('failed: the API did not answer about volume data-01 after 12s; wanted available');
      h.answer = () => Promise.reject(timeout());
      const json = await h.cli(['-o', 'json', 'wait', 'data-01', '--state', 'available', '--timeout', '0']);
      expect(json.code).toBe(EXIT.timeout);
      expect(json.json).toEqual({ result: 'timeout' });
    });

    it('names the state last seen when the looks after it are not answered in time', async () => {
      await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
      let answered = 1;
      h.answer = () => (answered-- > 0 ? undefined : Promise.reject(timeout()));
      const given = bounds();
      const run = await h.cli(['-o', 'json', 'wait', 'data-01', '--state', 'available', '--timeout', '8', '--interval', '4']);
      expect(run.code).toBe(EXIT.timeout);
      expect(given).toEqual([8000, 5000, 5000]);
      expect(run.json).toEqual({ result: 'timeout', state: 'pending' });
      expect(run.stderr.trim().split('\n').at(-2)).toBe('failed: volume data-01 is still pending after 8s; wanted available');
    });
  });
});
