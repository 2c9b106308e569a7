import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('MemoryOperationQueue: a visibility change by an earlier receive\'s handle', () => {
  it('changes nothing once the message was received again, as a delete by that handle changes nothing', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000 });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    const first = queue.receive(1)[0]!;
    await clock.advance(1_000);
    queue.receive(1);
    queue.changeVisibility(first.receiptHandle, 0);
    expect(queue.pending().map((m) => m.visibleAt)).toEqual([2_000]);
    expect(queue.receive(1)).toEqual([]);
  });
});
