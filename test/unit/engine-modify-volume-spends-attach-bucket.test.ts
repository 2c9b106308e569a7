/**
 * EC2 meters AttachVolume, DetachVolume and ModifyVolume in one request bucket, the mutating
 * actions' (EC2 API throttling docs; README, context option `ec2RateBudget`): an environment's
 * ModifyVolume calls spend its AttachVolume budget, not the CreateVolume budget or any other.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { EC2_REQUEST_BUCKETS, type EngineConfig } from '../../lib/engine/config.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const ONE_MUTATING_CALL: EngineConfig['rateBudgets'] = { ...EC2_REQUEST_BUCKETS, AttachVolume: { burst: 1, ratePerSecond: 0.001 } };

describe('modifications under a mutating-actions budget of one call', () => {
  it('makes one ModifyVolume of two due at once, however many CreateVolume and other tokens are left', async () => {
    const h = harness({ config: { rateBudgets: ONE_MUTATING_CALL } });
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    for (const id of ['data-1', 'data-2']) expect((await volumeOf(h, id)).status.state).toBe('available');
    expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
    h.changes.splice(0);
    h.queue.purge();
    for (const id of ['data-1', 'data-2']) {
      const volume = await volumeOf(h, id);
      await h.store.update<VolumeRecord>(volumeKey(id), { spec: { ...volume.spec, iops: 4000 }, generation: volume.generation + 1 });
    }

    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1')), h.op('modify-volume', volumeKey('data-2'))));

    expect(h.ebs.calls.ModifyVolume).toBe(1);
    // The other waits for the bucket's next token (1000 s off: the longest delay of one message).
    expect(h.queued()).toEqual(expect.arrayContaining([{ op: 'modify-volume', key: 'data-2', delaySeconds: 900 }]));
    expect(h.ebs.calls.CreateVolume).toBe(2);
  });
});
