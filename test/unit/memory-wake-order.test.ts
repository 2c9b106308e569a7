import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../lib/memory/clock.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import type { OperationMessage } from '../../lib/engine/ports.js';

const message = (volumeId: string): OperationMessage => ({ op: 'check-volume', key: { kind: 'volume', volumeId } });

describe('FakeClock and MemoryOperationQueue: what comes first', () => {
  it('wakes sleepers due at the same time in the order their sleeps began', async () => {
    const clock = new FakeClock(0);
    const woken: string[] = [];
    void clock.sleep(200).then(() => woken.push('first'));
    await clock.advance(100);
    void clock.sleep(100).then(() => woken.push('second'));
    void clock.sleep(100).then(() => woken.push('third'));
    await clock.advance(100);
    expect(woken).toEqual(['first', 'second', 'third']);
    expect(clock.now()).toBe(200);
  });

  it('says when the soonest message becomes visible, whatever order the messages were sent in', async () => {
    const clock = new FakeClock(1_000);
    const queue = new MemoryOperationQueue({ clock });
    await queue.send([
      { message: message('late'), delaySeconds: 30 },
      { message: message('soon'), delaySeconds: 10 },
      { message: message('later'), delaySeconds: 20 },
    ]);
    expect(queue.nextVisibleAt()).toBe(11_000);
    await clock.advanceTo(11_000);
    expect(queue.receive(10).map((m) => m.message.key)).toEqual([{ kind: 'volume', volumeId: 'soon' }]);
  });
});
