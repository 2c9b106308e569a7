import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('MemoryOperationQueue: which visible messages a receive hands out first', () => {
  it('hands out first the message visible longest: one sent later but visible since, before one received and visible again only now', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock, visibilityTimeoutMs: 1_000 });
    await queue.send([{ message: message('received-before'), delaySeconds: 0 }]);
    expect(queue.receive(1)).toHaveLength(1);
    await clock.advance(500);
    await queue.send([{ message: message('visible-since'), delaySeconds: 0 }]);
    await clock.advance(500);
    expect(queue.receive(1).map((m) => m.message)).toEqual([message('visible-since')]);
    expect(queue.receive(1).map((m) => m.message)).toEqual([message('received-before')]);
  });

  it('takes a delayed message as visible from the end of its delay', async () => {
    const clock = new FakeClock(0);
    const queue = new MemoryOperationQueue({ clock });
    await queue.send([{ message: message('delayed'), delaySeconds: 2 }]);
    await clock.advance(1_000);
    await queue.send([{ message: message('at-once'), delaySeconds: 0 }]);
    await clock.advance(1_000);
    expect(queue.receive(10).map((m) => m.message)).toEqual([message('at-once'), message('delayed')]);
  });
});
