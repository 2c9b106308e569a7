import { describe, expect, it } from 'vitest';
import { MAX_FAILURE_WAIT_MS, pollUntilStopped } from '../../lib/local/poll-loop.js';
import { FakeClock, RecordingLog } from '../../lib/memory/index.js';

/** Runs a poll loop over `reads` (each returns the items it handled or throws), noting the clock's time at each read. */
async function readTimes(idleMs: number, reads: (() => Promise<number>)[], runFor: number): Promise<number[]> {
  const clock = new FakeClock(0);
  const at: number[] = [];
  let next = 0;
  let running = true;
  const loop = pollUntilStopped({
    running: () => running && next < reads.length,
    pollOnce: () => {
      at.push(clock.now());
      return reads[next++]!();
    },
    clock,
    log: new RecordingLog(),
    idleMs,
    name: 'test poller',
  });
  await clock.advance(runFor);
  running = false;
  await clock.advance(MAX_FAILURE_WAIT_MS);
  await loop;
  return at;
}

const fails = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:4566'));
const finds = (items: number) => () => Promise.resolve(items);

describe('the poll loop', () => {
  it('starts the doubling wait again from the idle wait after a read that succeeded: only failures in a row lengthen it', async () => {
    const at = await readTimes(200, [fails, fails, fails, finds(0), fails, fails, finds(0)], 60_000);
    // 200, 400, 800 after three failures; the idle wait after the empty read; then 200, 400 again.
    expect(at).toEqual([0, 200, 600, 1_400, 1_600, 1_800, 2_200]);
  });

  it('reads again at once after a read that found something, waiting the idle wait only after one that found nothing', async () => {
    const at = await readTimes(200, [finds(3), finds(1), finds(0), finds(2), finds(0)], 10_000);
    expect(at).toEqual([0, 0, 0, 200, 200]);
  });

  it('waits exactly the logged wait after a failed read when the idle wait does not divide it, never past the 10 s ceiling', async () => {
    const at = await readTimes(300, Array.from({ length: 9 }, () => fails), 120_000);
    const waits = at.slice(1).map((t, i) => t - at[i]!);
    expect(waits).toEqual([300, 600, 1_200, 2_400, 4_800, 9_600, 10_000, 10_000]);
  });

  it('still backs off after failed reads when there is no idle wait, rather than reading again at once', async () => {
    const at = await readTimes(0, Array.from({ length: 6 }, () => fails), 60_000);
    const waits = at.slice(1).map((t, i) => t - at[i]!);
    expect(waits.every((w) => w > 0)).toBe(true);
    expect(waits).toEqual([...waits].sort((a, b) => a - b));
    expect(new Set(waits).size).toBe(waits.length);
  });

  it('ends as soon as a read under way when the stop came returns, without a further idle wait', async () => {
    const clock = new FakeClock(0);
    let running = true;
    let reads = 0;
    const loop = pollUntilStopped({
      running: () => running,
      pollOnce: async () => {
        reads++;
        await clock.sleep(100);
        return 0;
      },
      clock,
      log: new RecordingLog(),
      idleMs: 1_000,
      name: 'test poller',
    });
    let ended = false;
    void loop.then(() => (ended = true));
    await clock.advance(50);
    running = false;
    await clock.advance(50);
    expect(ended).toBe(true);
    expect(reads).toBe(1);
    await loop;
  });
});
