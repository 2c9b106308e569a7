import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('MemoryOperationQueue: the bounds SQS takes', () => {
  it('takes a visibility timeout of 0: a message received and not deleted can be received again at once', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 0 });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    expect(queue.receive(1)).toHaveLength(1);
    expect(queue.receive(1).map((m) => m.receiveCount)).toEqual([2]);
  });

  it('takes a delay of 900 s, the longest SQS allows, and holds the message until then', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock });
    await queue.send([{ message: message('a'), delaySeconds: 900 }]);
    await clock.advance(899_999);
    expect(queue.receive(1)).toEqual([]);
    await clock.advance(1);
    expect(queue.receive(1).map((m) => m.message)).toEqual([message('a')]);
  });

  it('refuses a negative delay as SQS does, and sends none of the batch', async () => {
    const queue = new MemoryOperationQueue({ clock: new FakeClock(0) });
    await expect(
      queue.send([
        { message: message('a'), delaySeconds: 0 },
        { message: message('b'), delaySeconds: -1 },
      ]),
    ).rejects.toThrow(new RangeError('delaySeconds must be a whole number from 0 to 900, got -1'));
    expect(queue.pending()).toEqual([]);
  });
});
