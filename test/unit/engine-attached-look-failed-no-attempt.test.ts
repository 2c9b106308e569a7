/**
 * A look at an attachment at rest (attached) that fails, DescribeVolumes refused, is no attempt of
 * anything: the record is left as it was, its next look (the reconciler's) comes on its own.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachData1, attachmentKey, harness, providerOver } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('a check of an attached attachment whose DescribeVolumes fails', () => {
  it('writes nothing to the record', async () => {
    const h = harness();
    await attachData1(h);
    const attached = (await h.store.get(KEY)) as AttachmentRecord;
    expect(attached.status.state).toBe('attached');

    const provider = providerOver(h.ebs, {
      describeVolumes: async () => {
        throw new ProviderError('transient', 'InternalError', 'EC2 had an internal error');
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(60_000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(await h.store.get(KEY)).toEqual(attached);
  });
});
