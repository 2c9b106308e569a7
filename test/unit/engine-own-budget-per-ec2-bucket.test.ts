/**
 * An executor environment's own rate budget (spent without the shared budget) is one per EC2
 * request bucket, as EC2 meters the calls: AttachVolume, DetachVolume, ModifyVolume and DeleteTags
 * draw on one together (README, context option `ec2RateBudget`; `RATE_BUCKET_OF`). With
 * `ec2RateBudget` (EC2_RATE_BUDGET) each bucket, not each action, gets that many calls a second.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { readFunctionEnvironment } from '../../lib/functions/environment.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, INSTANCE, newAttachment, newVolume, OTHER_INSTANCE, settleAll } from './engine-fixtures.js';

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
