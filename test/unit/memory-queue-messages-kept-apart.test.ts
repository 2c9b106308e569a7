import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('MemoryOperationQueue: each message its own', () => {
  it('gives every message an id of its own, so deleting one by its receipt handle leaves the others', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    await queue.send([{ message: message('b'), delaySeconds: 0 }]);
    const received = queue.receive(10);
    expect(new Set(received.map((m) => m.messageId)).size).toBe(2);
    expect(new Set(received.map((m) => m.receiptHandle)).size).toBe(2);
    queue.delete(received[0]!.receiptHandle);
    expect(queue.pending().map((m) => m.message)).toEqual([message('b')]);
  });

  it('keeps what was sent as it was sent: changing the message given to send, one received or one listed changes nothing queued', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000 });
    const sent = message('a');
    await queue.send([{ message: sent, delaySeconds: 0 }]);
    (sent.key as { volumeId: string }).volumeId = 'changed-after-send';
    const [received] = queue.receive(1);
    expect(received?.message).toEqual(message('a'));
    (received!.message.key as { volumeId: string }).volumeId = 'changed-after-receive';
    (queue.pending()[0]!.message.key as { volumeId: string }).volumeId = 'changed-in-listing';
    await clock.advance(1_000);
    expect(queue.receive(1).map((m) => m.message)).toEqual([message('a')]);
  });

  it('hands a message out with the time it was sent, not the time it was received', async () => {
    const clock = new FakeClock(5_000);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000 });
    await queue.send([{ message: message('a'), delaySeconds: 2 }]);
    await clock.advance(2_000);
    expect(queue.receive(1).map((m) => m.sentAt)).toEqual([5_000]);
    await clock.advance(1_000);
    expect(queue.receive(1).map((m) => m.sentAt)).toEqual([5_000]);
  });

  it('lists a dead letter as a copy: changing it changes nothing in the dead-letter list', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 0, maxReceiveCount: 1 });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    queue.receive(1);
    queue.receive(1);
    (queue.deadLetters()[0]!.message.key as { volumeId: string }).volumeId = 'changed';
    expect(queue.deadLetters().map((d) => d.message)).toEqual([message('a')]);
  });
});
