/**
 * A modification EC2 accepted counts toward its limit (4 in any 24 hours) from when EC2 answered
 * the ModifyVolume, not from when the batch began: EC2 started it before it answered, so a window
 * counted from the answer ends no earlier than EC2's does.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a ModifyVolume that takes a while to answer', () => {
  it('records the modification as started when EC2 answered', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    let answeredAt: number | undefined;
    const provider = providerOver(h.ebs, {
      modifyVolume: async (request) => {
        await h.clock.sleep(4_000);
        await h.ebs.modifyVolume(request);
        answeredAt = h.clock.now();
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    const batchStartedAt = h.clock.now();
    const run = executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    await h.clock.advance(10_000);
    await run;

    expect(answeredAt).toBe(batchStartedAt + 4_000);
    const modifying = await volumeOf(h);
    expect(modifying.status.state).toBe('modifying');
    expect(modifying.lastModificationStartedAt).toBe(new Date(answeredAt!).toISOString());
  });
});
