import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';

const T0 = Date.UTC(2026, 0, 1);

describe('the virtual-time event loop', () => {
  it('fires an event asked for in the past at the current time: time never goes back', async () => {
    const loop = new EventLoop(T0);
    const firedAt: number[] = [];
    loop.at(T0 + 1000, () => loop.at(T0, () => firedAt.push(loop.now())));
    await loop.run();
    expect(firedAt).toEqual([T0 + 1000]);
  });

  it('refuses a negative, infinite or NaN delay, naming it, and schedules nothing', () => {
    const loop = new EventLoop(T0);
    for (const ms of [-1, Number.POSITIVE_INFINITY, Number.NaN]) expect(() => loop.after(ms, () => undefined)).toThrow(/ms: must be a finite non-negative number/);
    expect(loop.pending()).toBe(0);
  });

  it('fires events at the deadline itself, and stops before the first one past it', async () => {
    const loop = new EventLoop(T0);
    const fired: number[] = [];
    loop.at(T0 + 1000, () => fired.push(1));
    loop.at(T0 + 1001, () => fired.push(2));
    expect(await loop.run({ untilMs: T0 + 1000 })).toBe('deadline');
    expect(fired).toEqual([1]);
    expect(loop.pending()).toBe(1);
  });

  it('stops as soon as done() holds, leaving later events unfired', async () => {
    const loop = new EventLoop(T0);
    let finished = false;
    loop.at(T0 + 10, () => (finished = true));
    const later: number[] = [];
    loop.at(T0 + 20, () => later.push(loop.now()));
    expect(await loop.run({ done: () => finished })).toBe('done');
    expect(later).toEqual([]);
    expect(loop.now()).toBe(T0 + 10);
    expect(await loop.run()).toBe('idle');
    expect(later).toEqual([T0 + 20]);
  });
});
