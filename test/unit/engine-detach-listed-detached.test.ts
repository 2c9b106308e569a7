/**
 * EC2 may still list an attachment it has finished detaching, in state `detached`, with the volume:
 * that is no attachment held. A dying attachment whose detach EC2 lists so is done and removed.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachData1, attachmentKey, harness, providerOver } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('a check of a detaching attachment EC2 lists detached', () => {
  it('removes the dying record', async () => {
    const h = harness({ ebsTimings: { detach: 10 * 60_000 } });
    await attachData1(h);
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('detach', KEY)));
    expect(((await h.store.get(KEY)) as AttachmentRecord).status.state).toBe('detaching');

    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, state: 'available' as const, attachments: v.attachments.map((a) => ({ ...a, state: 'detached' as const })) })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(5000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(await h.store.get(KEY)).toBeUndefined();
  });
});
