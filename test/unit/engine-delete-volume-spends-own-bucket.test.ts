/**
 * EC2 meters DeleteVolume in a request bucket of its own (EC2 API throttling docs; README, context
 * option `ec2RateBudget`): an environment's DeleteVolume calls spend its DeleteVolume budget, not
 * the CreateVolume budget or any other, however many tokens those hold.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { EC2_REQUEST_BUCKETS, type EngineConfig } from '../../lib/engine/config.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const ONE_DELETE: EngineConfig['rateBudgets'] = { ...EC2_REQUEST_BUCKETS, DeleteVolume: { burst: 1, ratePerSecond: 0.001 } };

describe('deletes under a DeleteVolume budget of one call', () => {
  it('makes one DeleteVolume of two due at once, the other waiting for that budget', async () => {
    const h = harness({ config: { rateBudgets: ONE_DELETE } });
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    for (const id of ['data-1', 'data-2']) expect((await volumeOf(h, id)).status.state).toBe('available');
    h.changes.splice(0);
    h.queue.purge();
    for (const id of ['data-1', 'data-2']) await h.store.update<VolumeRecord>(volumeKey(id), { life: 'dying' });

    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1')), h.op('delete-volume', volumeKey('data-2'))));

    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(h.ebs.calls.CreateVolume).toBe(2);
    // The other waits for the bucket's next token (1000 s off: the longest delay of one message).
    expect(h.queued()).toEqual(expect.arrayContaining([{ op: 'delete-volume', key: 'data-2', delaySeconds: 900 }]));
  });
});
