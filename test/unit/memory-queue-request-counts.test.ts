import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('MemoryOperationQueue: requests counted for cost estimates', () => {
  it('counts each receive, empty or not, and each delete, stale handle or not', async () => {
    const queue = new MemoryOperationQueue({ clock: new FakeClock(0) });
    await queue.send([{ message: message('a'), delaySeconds: 0 }]);
    const [received] = queue.receive(10);
    queue.receive(10);
    queue.delete(received!.receiptHandle);
    queue.delete(received!.receiptHandle);
    expect({ send: queue.sendRequests, receive: queue.receiveRequests, delete: queue.deleteRequests }).toEqual({ send: 1, receive: 2, delete: 2 });
  });
});
