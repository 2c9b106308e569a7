/**
 * An attachment released by its volume's check for the first time (it waited for the volume)
 * attaches in that invocation only on a rate token usable now: the watcher's own message for it
 * brings it back anyway. With the shared budget's AttachVolume tokens sold ahead to other
 * environments, it takes none ahead and sends no message of its own: it is left to that message.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';

describe('a first-time released attachment finding no AttachVolume token now', () => {
  it('makes no call, takes no token ahead and sends no attach of its own', async () => {
    const rateBudget = new MemoryRateBudget();
    const h = harness({ rateBudget });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    h.queue.purge();
    await h.clock.advance(10_000);
    // Other environments took the AttachVolume bucket for about 10 s ahead.
    const budget = DEFAULT_ENGINE_CONFIG.accountRateBudgets.AttachVolume;
    await rateBudget.take('AttachVolume', budget.burst + budget.ratePerSecond * 10, budget, h.clock.now(), Number.POSITIVE_INFINITY);
    const next = await rateBudget.take('AttachVolume', 1, budget, h.clock.now(), 0);
    expect(next.usableAt).toEqual([]);
    const attachment = await h.store.get(attachmentKey('data-1'));

    await h.executor.run([{ messageId: 'check', message: { op: 'check-volume', key: volumeKey('data-1') }, receiveCount: 1 }]);

    expect(h.ebs.calls.AttachVolume).toBe(0);
    expect(h.queue.pending().filter((pending) => pending.message.key.kind === 'attachment')).toEqual([]);
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(attachment);
    // The line is where the other environments left it: the next token is still about 10 s off, not one further.
    const after = await rateBudget.take('AttachVolume', 1, budget, h.clock.now(), Number.POSITIVE_INFINITY);
    expect(after.usableAt[0]! - h.clock.now()).toBeLessThanOrEqual(10_000 + 1000 / budget.ratePerSecond);
  });
});
