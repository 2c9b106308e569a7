import { describe, expect, it } from 'vitest';
import { StandardRetry, retryDelayMs } from '../../bench/naive/sdk.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { FixedRandom } from './fixed-random.js';
import { ProviderError } from '../../lib/engine/ports.js';

// The SDK for JavaScript v3's default "standard" retry strategy, as the naive design's workers meet it
// (@smithy/core retry, as installed): 3 attempts; a wait of floor(random × min(base × 2^i, 20 s))
// before retry i, base 1 s for throttling and 50 ms otherwise; a 500-token quota per client, 5 tokens
// a throttled retry and 14 another, the retry's cost given back when the call then succeeds and one
// token for a success at the first attempt, never above 500.

const T0 = Date.UTC(2026, 0, 1);

const throttled = () => new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
const transient = () => new ProviderError('transient', 'InternalError', 'An internal error has occurred.');

/** Runs one call through `retry`; `outcomes` are the attempts' results in order (an error is thrown, anything else returned). */
async function attempt(loop: EventLoop, retry: StandardRetry, outcomes: (Error | 'ok')[]): Promise<{ at: number[]; result: unknown }> {
  const at: number[] = [];
  const started = loop.now();
  const pending = retry
    .call(async () => {
      const outcome = outcomes[at.length] ?? outcomes[outcomes.length - 1]!;
      at.push(loop.now() - started);
      if (outcome instanceof Error) throw outcome;
      return outcome;
    })
    .catch((error: unknown) => error);
  await loop.run();
  return { at, result: await pending };
}

describe('the SDK standard retry strategy the naive design reproduces', () => {
  it('waits floor(random × min(base × 2^i, 20 s)) before retry i', () => {
    expect(retryDelayMs(0, 1000, new FixedRandom(0.5))).toBe(500);
    expect(retryDelayMs(1, 1000, new FixedRandom(0.5))).toBe(1000);
    expect(retryDelayMs(2, 50, new FixedRandom(0.5))).toBe(100);
    expect(retryDelayMs(0, 50, new FixedRandom(0.12345))).toBe(6);
    // 1 s × 2^5 = 32 s is past the 20 s ceiling.
    expect(retryDelayMs(5, 1000, new FixedRandom(0.999))).toBe(19_980);
    expect(retryDelayMs(0, 1000, new FixedRandom(0))).toBe(0);
  });

  it('makes three attempts at most, retrying throttling on a 1 s base and transient errors on a 50 ms one', async () => {
    const loop = new EventLoop(T0);
    const retry = new StandardRetry(loop.clock, new FixedRandom(0.999));
    const slowed = await attempt(loop, retry, [throttled()]);
    expect(slowed.result).toBeInstanceOf(ProviderError);
    expect(slowed.at).toEqual([0, 999, 999 + 1998]);
    const failing = await attempt(loop, retry, [transient()]);
    expect(failing.result).toBeInstanceOf(ProviderError);
    expect(failing.at).toEqual([0, 49, 49 + 99]);
    // The wait follows the error just met: a throttled retry after a transient one waits on the 1 s base for retry 1.
    const mixed = await attempt(loop, retry, [transient(), throttled(), 'ok']);
    expect(mixed).toEqual({ at: [0, 49, 49 + 1998], result: 'ok' });
  });

  it('does not retry an error that is neither throttling nor transient', async () => {
    const loop = new EventLoop(T0);
    const retry = new StandardRetry(loop.clock, new FixedRandom(0.5));
    const invalid = await attempt(loop, retry, [new ProviderError('invalid-request', 'InvalidParameterValue', 'Value for parameter size is invalid.'), 'ok']);
    expect(invalid.at).toEqual([0]);
    expect(invalid.result).toBeInstanceOf(ProviderError);
    const foreign = await attempt(loop, retry, [new Error('socket hang up'), 'ok']);
    expect(foreign.at).toEqual([0]);
    expect(retry.retries).toBe(0);
  });

  it('counts the retries it made and the throttling errors it met', async () => {
    const loop = new EventLoop(T0);
    const retry = new StandardRetry(loop.clock, new FixedRandom(0.5));
    expect((await attempt(loop, retry, [throttled(), transient(), 'ok'])).result).toBe('ok');
    expect(await attempt(loop, retry, [throttled(), throttled(), throttled()])).toMatchObject({ at: [0, 500, 1500] });
    expect(retry.retries).toBe(4);
    expect(retry.throttlingErrors).toBe(4);
  });

  it('spends 14 of its 500 tokens on each transient retry and stops retrying when it cannot pay', async () => {
    const loop = new EventLoop(T0);
    const retry = new StandardRetry(loop.clock, new FixedRandom(0));
    const attempts: number[] = [];
    for (let i = 0; i < 20; i++) attempts.push((await attempt(loop, retry, [transient()])).at.length);
    // 35 retries cost 490 tokens; the 10 left pay for no more.
    expect(attempts).toEqual([...Array<number>(17).fill(3), 2, 1, 1]);
    expect(retry.retries).toBe(35);
  });

  it('spends 5 of its 500 tokens on each throttled retry, down to the last token', async () => {
    const loop = new EventLoop(T0);
    const retry = new StandardRetry(loop.clock, new FixedRandom(0));
    const attempts: number[] = [];
    for (let i = 0; i < 52; i++) attempts.push((await attempt(loop, retry, [throttled()])).at.length);
    // 100 retries spend all 500 tokens, the last one paid with exactly its cost.
    expect(attempts).toEqual([...Array<number>(50).fill(3), 1, 1]);
    expect(retry.retries).toBe(100);
  });

  it('gives back one token per success at the first attempt and a retry\'s cost when the retried call succeeds, up to 500', async () => {
    const loop = new EventLoop(T0);
    const retry = new StandardRetry(loop.clock, new FixedRandom(0));
    // Successes on a full quota keep it at 500: still 35 transient retries to spend.
    for (let i = 0; i < 3; i++) await attempt(loop, retry, ['ok']);
    for (let i = 0; i < 18; i++) await attempt(loop, retry, [transient()]);
    expect(retry.retries).toBe(35);
    // 10 tokens left: three successes bring 13, still short of a retry; the fourth makes 14.
    for (let i = 0; i < 3; i++) await attempt(loop, retry, ['ok']);
    expect((await attempt(loop, retry, [transient(), 'ok'])).at).toEqual([0]);
    await attempt(loop, retry, ['ok']);
    // The retry spends the 14 and its success gives them back, so the next call may retry once more.
    expect(await attempt(loop, retry, [transient(), 'ok'])).toEqual({ at: [0, 0], result: 'ok' });
    expect((await attempt(loop, retry, [transient()])).at).toEqual([0, 0]);
    expect((await attempt(loop, retry, [transient()])).at).toEqual([0]);
  });
});
