import { describe, expect, it, vi } from 'vitest';
import { FakeClock, SystemClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('FakeClock', () => {
  it('wakes sleepers in due order, including sleeps started by woken tasks', async () => {
    const clock = new FakeClock(0);
    const woken: string[] = [];
    void clock.sleep(300).then(() => woken.push(`b@${clock.now()}`));
    void clock.sleep(100).then(async () => {
      woken.push(`a@${clock.now()}`);
      await clock.sleep(100);
      woken.push(`c@${clock.now()}`);
    });
    await clock.advance(250);
    expect(woken).toEqual(['a@100', 'c@200']);
    expect(clock.now()).toBe(250);
    await clock.advance(50);
    expect(woken).toEqual(['a@100', 'c@200', 'b@300']);
    expect(clock.pendingSleepers()).toBe(0);
  });

  it('resolves a non-positive sleep at once', async () => {
    const clock = new FakeClock(5);
    await clock.sleep(0);
    expect(clock.now()).toBe(5);
  });

  it('refuses a sleep of NaN and an advance that is no finite number, and its time stays as it was', async () => {
    const clock = new FakeClock(0);
    const woken: number[] = [];
    void clock.sleep(100).then(() => woken.push(clock.now()));
    const refused = clock.sleep(Number.NaN).catch((error: unknown) => error);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(/^advance takes a finite number of milliseconds, got NaN$/);
    await expect(clock.advance(Number.POSITIVE_INFINITY)).rejects.toThrow(/got Infinity$/);
    await expect(clock.advanceTo(Number.NaN)).rejects.toThrow(/^advanceTo takes a finite epoch time in milliseconds, got NaN$/);
    expect(clock.now()).toBe(0);
    expect(woken).toEqual([]);
    await clock.advance(100);
    expect(clock.now()).toBe(100);
    expect(woken).toEqual([100]);
    expect(await refused).toEqual(new RangeError('sleep takes a number of milliseconds, got NaN'));
  });
});

describe('SystemClock', () => {
  it('sleeps longer than one Node timer can wait (about 24.8 days), one timer after another, and refuses a sleep of NaN', async () => {
    vi.useFakeTimers({ now: 0 });
    try {
      const clock = new SystemClock();
      let woke: number | undefined;
      void clock.sleep(2 ** 31 + 5_000).then(() => (woke = Date.now()));
      await vi.advanceTimersByTimeAsync(2 ** 31);
      expect(woke).toBeUndefined();
      await vi.advanceTimersByTimeAsync(5_000);
      expect(woke).toBe(2 ** 31 + 5_000);
      await expect(clock.sleep(Number.NaN)).rejects.toThrow(new RangeError('sleep takes a number of milliseconds, got NaN'));
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('MemoryOperationQueue', () => {
  it('holds a delayed message until its delay has passed', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock });
    await queue.send([{ message: message('a'), delaySeconds: 10 }]);
    expect(queue.receive(10)).toEqual([]);
    await clock.advance(10_000);
    const [received] = queue.receive(10);
    expect(received?.message).toEqual(message('a'));
    expect(received?.receiveCount).toBe(1);
  });

  it('redelivers an undeleted message after the visibility timeout, and dead-letters it after max receives', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000, maxReceiveCount: 2 });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    expect(queue.receive(1)).toHaveLength(1);
    expect(queue.receive(1)).toHaveLength(0);
    await clock.advance(1_000);
    expect(queue.receive(1)[0]?.receiveCount).toBe(2);
    await clock.advance(1_000);
    expect(queue.receive(1)).toEqual([]);
    expect(queue.deadLetters().map((d) => d.message)).toEqual([message('a')]);
    expect(queue.pending()).toEqual([]);
  });

  it('deletes by receipt handle and ignores a stale handle', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000 });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    const first = queue.receive(1)[0]!;
    await clock.advance(1_000);
    const second = queue.receive(1)[0]!;
    queue.delete(first.receiptHandle);
    expect(queue.pending()).toHaveLength(1);
    queue.delete(second.receiptHandle);
    expect(queue.pending()).toHaveLength(0);
  });

  it('rejects delays SQS would reject and counts batch requests by ten', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock });
    await expect(queue.send([{ message: message('a'), delaySeconds: 901 }])).rejects.toThrow(/0 to 900/);
    await expect(queue.send([{ message: message('a'), delaySeconds: 1.5 }])).rejects.toThrow(/whole number/);
    expect(queue.pending()).toEqual([]);
    await queue.send(Array.from({ length: 21 }, (_, i) => ({ message: message(`v${i}`), delaySeconds: 0 })));
    expect(queue.sendRequests).toBe(3);
    expect(queue.receive(100)).toHaveLength(21);
  });

  it('refuses a receive of no positive whole number of messages, and a visibility timeout SQS would refuse, and changes nothing', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000 });
    await queue.send([{ message: message('a'), delaySeconds: 0 }, { message: message('b'), delaySeconds: 0 }]);
    for (const max of [Number.NaN, 0, -1, 1.5]) {
      expect(() => queue.receive(max)).toThrow(new RangeError(`receive takes a positive whole number of messages, got ${max}`));
    }
    expect(queue.pending().map((m) => m.receiveCount)).toEqual([0, 0]);
    const [received] = queue.receive(1);
    for (const seconds of [Number.NaN, -1, 0.5, 43_201]) {
      expect(() => queue.changeVisibility(received!.receiptHandle, seconds)).toThrow(
        new RangeError(`visibility timeout must be a whole number of seconds from 0 to 43200, got ${seconds}`),
      );
    }
    expect(queue.pending().map((m) => m.visibleAt)).toEqual([1_000, 0]);
    queue.changeVisibility(received!.receiptHandle, 43_200);
    expect(queue.pending().map((m) => m.visibleAt)).toEqual([43_200_000, 0]);
  });

  it('refuses a visibility timeout outside SQS\'s 12 hours and a receive count before dead-lettering that is no positive whole number', () => {
    const clock = new FakeClock(0);
    for (const visibilityTimeoutMs of [Number.NaN, -1, 43_200_001]) {
      expect(() => new MemoryOperationQueue({ clock, visibilityTimeoutMs })).toThrow(new RangeError(`visibilityTimeoutMs must be from 0 to 43200000, got ${visibilityTimeoutMs}`));
    }
    for (const maxReceiveCount of [Number.NaN, 0, 2.5]) {
      expect(() => new MemoryOperationQueue({ clock, maxReceiveCount })).toThrow(new RangeError(`maxReceiveCount must be a positive whole number, got ${maxReceiveCount}`));
    }
    expect(() => new MemoryOperationQueue({ clock, visibilityTimeoutMs: 43_200_000, maxReceiveCount: 1 })).not.toThrow();
  });

  it('fails injected sends without enqueuing, then recovers', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock });
    queue.failNextSend(new Error('queue unavailable'));
    await expect(queue.send([{ message: message('a'), delaySeconds: 0 }])).rejects.toThrow('queue unavailable');
    await queue.send([{ message: message('a'), delaySeconds: 3 }]);
    expect(queue.nextVisibleAt()).toBe(3_000);
    queue.changeVisibility('none', 0);
    expect(queue.pending()).toHaveLength(1);
  });
});
