/**
 * A spec change of a volume EC2 lists as `deleting` (deleted outside the system) makes no call: the
 * volume is as gone as one EC2 no longer lists, and the record says so, as a check of it would.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a spec change of a volume EC2 is deleting', () => {
  it('makes no ModifyVolume and records the volume gone', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) => (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, state: 'deleting' as const })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    await executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
    const after = await volumeOf(h);
    expect(after.status).toMatchObject({
      state: 'error',
      code: 'InvalidVolume.NotFound',
      message: `volume ${volume.ebsVolumeId} no longer exists in EC2; a retry creates a new, empty volume`,
    });
    expect(after.ebsVolumeId).toBeUndefined();
  });
});
