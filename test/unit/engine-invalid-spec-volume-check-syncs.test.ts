/**
 * A check asked for a volume at rest brings its in-use / available state in line with EC2 whatever
 * its spec asks for: a spec EBS cannot make (a shrink) holds back the modification only, not the
 * record's reading of the volume.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { availableVolume, INSTANCE, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('a volume whose spec asks for a shrink, attached in the console', () => {
  it('a check sees it in use: the record reads in-use, with the shrink still refused and no ModifyVolume', async () => {
    const h = await availableVolume({ team: 'a' });
    const before = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...before.spec, sizeGiB: before.spec.sizeGiB - 1 }, generation: 2 });
    await h.watch();
    await h.drain();
    const refused = await volumeOf(h);
    expect(refused.status).toMatchObject({ state: 'available', code: 'InvalidSpecChange' });
    await h.ebs.attachVolume({ ebsVolumeId: refused.ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdf' });
    await h.clock.advance(10_000);
    // The reconciler's look at the volume.
    const { failedMessageIds } = await h.executor.run(h.batchOf({ op: 'check-volume', key: KEY, nudge: true }));
    expect(failedMessageIds).toEqual([]);
    const checked = await volumeOf(h);
    expect(checked.status).toMatchObject({ state: 'in-use', code: 'InvalidSpecChange' });
    expect(h.ebs.calls.ModifyVolume).toBe(0);
  });
});
