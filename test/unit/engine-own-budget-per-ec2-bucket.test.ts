/**
 * An executor environment's own rate budget (spent without the shared budget) is one per EC2
 * request bucket, as EC2 meters the calls: AttachVolume, DetachVolume, ModifyVolume and DeleteTags
 * draw on one together (README, context option `ec2RateBudget`; `RATE_BUCKET_OF`). With
 * `ec2RateBudget` (EC2_RATE_BUDGET) each bucket, not each action, gets that many calls a second.
 * ModifyVolume calls spend the AttachVolume budget, and DeleteVolume calls a budget of their own,
 * not the CreateVolume budget or any other, however many tokens those hold.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { EC2_REQUEST_BUCKETS, type EngineConfig } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { readFunctionEnvironment } from '../../lib/functions/environment.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, OTHER_INSTANCE, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

const ENV = { TABLE_NAME: 't', QUEUE_URL: 'q', OWNER_TAG_VALUE: 'ebs-provisioner', POWERTOOLS_METRICS_NAMESPACE: 'EbsProvisioner/s' };

describe("an environment's own budget with ec2RateBudget", () => {
  it('holds attaches and detaches together to one burst: 1 call a second, a burst of 4, for the two actions at once', async () => {
    const { rateBudgets } = readFunctionEnvironment({ ...ENV, EC2_RATE_BUDGET: '1' }).engineConfig;
    expect(rateBudgets).toEqual({
      CreateVolume: { ratePerSecond: 1, burst: 4 },
      AttachVolume: { ratePerSecond: 1, burst: 4 },
      DeleteVolume: { ratePerSecond: 1, burst: 4 },
      CreateTags: { ratePerSecond: 1, burst: 4 },
    });

    const h = harness();
    const attached = ['data-1', 'data-2', 'data-3'];
    const waiting = ['data-4', 'data-5', 'data-6'];
    for (const id of [...attached, ...waiting]) await h.store.create(newVolume(id));
    for (const id of attached) await h.store.create(newAttachment(id));
    await settleAll(h, 3);
    for (const id of attached) expect(await h.store.get(attachmentKey(id))).toMatchObject({ status: { state: 'attached' } });
    for (const id of waiting) await h.store.create(newAttachment(id, { instanceId: OTHER_INSTANCE }));
    for (const id of attached) await h.store.update<AttachmentRecord>(attachmentKey(id, INSTANCE), { life: 'dying' });
    await h.watch();
    h.queue.purge();

    const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0, rateBudgets: rateBudgets! } });
    const before = { attach: h.ebs.calls.AttachVolume ?? 0, detach: h.ebs.calls.DetachVolume ?? 0 };
    await executor.run(
      h.batchOf(
        ...attached.map((id) => h.op('detach', attachmentKey(id, INSTANCE))),
        ...waiting.map((id) => h.op('attach', attachmentKey(id, OTHER_INSTANCE))),
      ),
    );
    const made = (h.ebs.calls.AttachVolume ?? 0) - before.attach + ((h.ebs.calls.DetachVolume ?? 0) - before.detach);
    expect(made).toBe(4);
  });
});

/** A budget of one call in `bucket` (refilled only after 1000 s), the other buckets as EC2 meters them. */
const oneCallOf = (bucket: keyof EngineConfig['rateBudgets']): EngineConfig['rateBudgets'] => ({ ...EC2_REQUEST_BUCKETS, [bucket]: { burst: 1, ratePerSecond: 0.001 } });

/** data-1 and data-2 created and available, nothing queued or seen since. */
async function twoAvailableVolumes(h: ReturnType<typeof harness>): Promise<void> {
  for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  for (const id of ['data-1', 'data-2']) expect((await volumeOf(h, id)).status.state).toBe('available');
  h.changes.splice(0);
  h.queue.purge();
}

describe('calls under a budget of one call in their bucket', () => {
  it('makes one ModifyVolume of two due at once under an AttachVolume budget of one, however many CreateVolume and other tokens are left', async () => {
    const h = harness({ config: { rateBudgets: oneCallOf('AttachVolume') } });
    await twoAvailableVolumes(h);
    expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
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

  it('makes one DeleteVolume of two due at once under a DeleteVolume budget of one, the other waiting for that budget', async () => {
    const h = harness({ config: { rateBudgets: oneCallOf('DeleteVolume') } });
    await twoAvailableVolumes(h);
    for (const id of ['data-1', 'data-2']) await h.store.update<VolumeRecord>(volumeKey(id), { life: 'dying' });

    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1')), h.op('delete-volume', volumeKey('data-2'))));

    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(h.ebs.calls.CreateVolume).toBe(2);
    expect(h.queued()).toEqual(expect.arrayContaining([{ op: 'delete-volume', key: 'data-2', delaySeconds: 900 }]));
  });
});
