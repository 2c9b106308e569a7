import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';

describe('FakeClock: sleeps asked for just before time moves', () => {
  it('wakes a sleep that a task asks for after an await, started just before the advance, within the span advanced', async () => {
    const clock = new FakeClock(0);
    let wokeAt: number | undefined;
    void (async () => {
      await Promise.resolve();
      await clock.sleep(100);
      wokeAt = clock.now();
    })();
    await clock.advance(100);
    expect(wokeAt).toBe(100);
  });

  it('counts the sleeps not yet woken', async () => {
    const clock = new FakeClock(0);
    void clock.sleep(100);
    void clock.sleep(200);
    void clock.sleep(0);
    expect(clock.pendingSleepers()).toBe(2);
    await clock.advance(100);
    expect(clock.pendingSleepers()).toBe(1);
    await clock.advance(100);
    expect(clock.pendingSleepers()).toBe(0);
  });
});
