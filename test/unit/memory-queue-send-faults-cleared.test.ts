import { describe, expect, it } from 'vitest';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('MemoryOperationQueue: send failures cleared', () => {
  it('sends at once after clearFaults, the failures failNextSend set and that had not happened dropped', async () => {
    const queue = new MemoryOperationQueue({ clock: new FakeClock(0) });
    queue.failNextSend(new Error('throttled'), 3);
    await expect(queue.send([{ message: message('a'), delaySeconds: 0 }])).rejects.toThrow('throttled');
    queue.clearFaults();
    await queue.send([{ message: message('b'), delaySeconds: 0 }]);
    await queue.send([{ message: message('c'), delaySeconds: 0 }]);
    expect(queue.receive(10).map((received) => received.message)).toEqual([message('b'), message('c')]);
  });
});
