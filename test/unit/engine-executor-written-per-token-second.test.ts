/**
 * Calls are written and followed up as soon as the calls whose rate tokens fall in the same second
 * are answered: a call made at once is not held back, unwritten, until calls waiting seconds for
 * their tokens are made.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('executor: results written per second of their tokens', () => {
  it('a CreateVolume made at once is written before the one waiting for the next token is made', async () => {
    const budgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } };
    const h = harness({ config: { rateBudgets: budgets, rateWaitMaxMs: 5000 } });
    for (const id of ['a', 'b']) await h.store.create(newVolume(id));
    const run = h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), h.op('create-volume', volumeKey('b'))));
    await h.clock.advance(0);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    const first = [await volumeOf(h, 'a'), await volumeOf(h, 'b')].find((volume) => volume.ebsVolumeId !== undefined);
    expect(first?.status.state).toBe('creating');
    expect(first?.claim).toBeUndefined();
    await h.clock.advance(1000);
    await run;
    expect(h.ebs.calls.CreateVolume).toBe(2);
    for (const id of ['a', 'b']) expect((await volumeOf(h, id)).ebsVolumeId).toBeDefined();
  });
});
