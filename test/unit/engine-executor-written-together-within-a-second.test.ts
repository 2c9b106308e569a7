/**
 * Calls whose rate tokens fall in the same second (counted from the batch's start) are written and
 * followed up together: a call made at once waits, unwritten, for one whose token comes less than a
 * second later, and their follow-ups go in one send.
 */
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('executor: results of tokens less than a second apart', () => {
  it('a CreateVolume made at once and one whose token comes 600 ms later are written together, their follow-ups in one send', async () => {
    // One token at once, the next 600 ms later: both in the batch's first second.
    const budgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1000 / 600 } };
    const h = harness({ config: { rateBudgets: budgets, rateWaitMaxMs: 5000 } });
    for (const id of ['a', 'b']) await h.store.create(newVolume(id));
    const send = vi.spyOn(h.queue, 'send');
    const run = h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), h.op('create-volume', volumeKey('b'))));
    await h.clock.advance(300);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    for (const id of ['a', 'b']) expect((await volumeOf(h, id)).ebsVolumeId).toBeUndefined();
    expect(send).not.toHaveBeenCalled();
    await h.clock.advance(300);
    await run;
    expect(h.ebs.calls.CreateVolume).toBe(2);
    const written = [await volumeOf(h, 'a'), await volumeOf(h, 'b')];
    for (const volume of written) {
      expect(volume.ebsVolumeId).toBeDefined();
    }
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0]![0].map((operation) => operation.message.key)).toEqual(expect.arrayContaining([volumeKey('a'), volumeKey('b')]));
  });
});
