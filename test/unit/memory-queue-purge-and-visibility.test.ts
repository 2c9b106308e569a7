import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('MemoryOperationQueue: purging and changing visibility', () => {
  it('purges messages in flight and delayed as well as visible ones: none comes back', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000 });
    await queue.send([
      { message: message('in-flight'), delaySeconds: 0 },
      { message: message('visible'), delaySeconds: 0 },
    ]);
    queue.receive(1);
    await queue.send([{ message: message('delayed'), delaySeconds: 5 }]);
    queue.purge();
    expect(queue.pending()).toEqual([]);
    await clock.advance(10_000);
    expect(queue.receive(10)).toEqual([]);
  });

  it('makes a received message visible at once with a visibility timeout of 0, as SQS does', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 30_000 });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    const [received] = queue.receive(1);
    await clock.advance(1_000);
    queue.changeVisibility(received!.receiptHandle, 0);
    expect(queue.receive(1).map((m) => [m.message, m.receiveCount])).toEqual([[message('a'), 2]]);
  });
});
