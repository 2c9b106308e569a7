/**
 * A describe may lag a DetachVolume EC2 accepted: within the describe grace of the detach, an
 * attachment EC2 still lists attached is taken as detaching (no failed attempt, no second
 * DetachVolume); past it, the detach did not take (`ATTACHMENT_NOT_DETACHED_CODE`), the record attached again.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { ATTACHMENT_NOT_DETACHED_CODE } from '../../lib/engine/status.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachData1, attachmentKey, harness, providerOver } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('a check of a detaching attachment EC2 still lists attached', () => {
  it('within the describe grace is still detaching; past it, the detach did not take', async () => {
    const h = harness({ ebsTimings: { detach: 10 * 60_000 } });
    await attachData1(h);
    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('detach', KEY)));
    const detaching = (await h.store.get(KEY)) as AttachmentRecord;
    expect(detaching.status.state).toBe('detaching');
    const detaches = h.ebs.calls.DetachVolume;

    // EC2's describe lags the detach: it lists the attachment as it was.
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, state: 'in-use' as const, attachments: v.attachments.map((a) => ({ ...a, state: 'attached' as const })) })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs - 1000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const looked = (await h.store.get(KEY)) as AttachmentRecord;
    expect(looked.status.state).toBe('detaching');
    expect(looked.status.code).toBeUndefined();
    expect(looked.status.attempts).toBe(detaching.status.attempts);
    expect(h.ebs.calls.DetachVolume).toBe(detaches);

    await h.clock.advance(2000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(((await h.store.get(KEY)) as AttachmentRecord).status).toMatchObject({ state: 'attached', code: ATTACHMENT_NOT_DETACHED_CODE });
  });
});
