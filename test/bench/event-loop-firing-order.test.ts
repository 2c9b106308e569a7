/**
 * The virtual-time loop (`bench/sim/event-loop.ts`) fires events in (time, insertion) order, each
 * at its own time on the loop's clock, counts the events it fires, and starts by default at the
 * simulations' epoch, 2026-01-01T00:00:00Z.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop, SIMULATION_EPOCH_MS } from '../../bench/sim/event-loop.js';
import { Random } from '../../bench/sim/random.js';

describe("the virtual-time loop's order of events", () => {
  it('fires many events, scheduled out of order and many at one time, by time and then in the order they were scheduled', async () => {
    const loop = new EventLoop(SIMULATION_EPOCH_MS);
    const random = new Random(3);
    const scheduled: Array<{ at: number; index: number }> = [];
    const fired: Array<{ at: number; index: number; now: number }> = [];
    for (let index = 0; index < 600; index++) {
      // 40 distinct times for 600 events: about 15 at each.
      const at = SIMULATION_EPOCH_MS + Math.floor(random.uniform(0, 40)) * 10;
      scheduled.push({ at, index });
      loop.at(at, () => fired.push({ at, index, now: loop.now() }));
    }
    expect(await loop.run()).toBe('idle');
    const expected = [...scheduled].sort((a, b) => a.at - b.at || a.index - b.index);
    expect(fired.map(({ at, index }) => ({ at, index }))).toEqual(expected);
    expect(fired.every((event) => event.now === event.at)).toBe(true);
    expect(loop.eventsFired).toBe(600);
  });

  it('keeps that order for events scheduled while others fire', async () => {
    const loop = new EventLoop(SIMULATION_EPOCH_MS);
    const random = new Random(8);
    const fired: Array<[number, number]> = [];
    let next = 0;
    const schedule = (depth: number) => {
      const index = next++;
      const at = loop.now() + Math.floor(random.uniform(0, 5));
      loop.at(at, () => {
        fired.push([at, index]);
        if (depth < 3) for (let i = 0; i < 3; i++) schedule(depth + 1);
      });
    };
    for (let i = 0; i < 20; i++) schedule(0);
    await loop.run();
    expect(fired).toHaveLength(20 * (1 + 3 + 9 + 27));
    const sorted = [...fired].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(fired).toEqual(sorted);
  });

  it('starts at 2026-01-01T00:00:00Z unless told otherwise', () => {
    expect(new EventLoop().now()).toBe(Date.parse('2026-01-01T00:00:00Z'));
    expect(new EventLoop().clock.now()).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });
});
