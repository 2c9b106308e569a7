/**
 * The reconciler's leak warning names, for each leaked volume still attached, the instances it is
 * attached to (`attachedTo`, README: "for those still attached, the instances"). An attachment EC2
 * reports as `detached` (it lists one for a while once a detach is done) holds nothing: it is not
 * named, and a volume with only such attachments is listed without any.
 */
import { describe, expect, it } from 'vitest';
import { Reconciler } from '../../lib/engine/reconciler.js';
import type { ProviderVolume, VolumeProvider } from '../../lib/engine/ports.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingLog, RecordingMetrics } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, INSTANCE, OTHER_INSTANCE, providerOver } from './engine-fixtures.js';

const OWNER = 'stack-test';

describe('reconciler leak warning', () => {
  it('names the instances a leaked volume is attached to, not those EC2 shows it detached from', async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [AZ] });
    ebs.addInstance({ instanceId: INSTANCE, availabilityZone: AZ });
    ebs.addInstance({ instanceId: OTHER_INSTANCE, availabilityZone: AZ });
    const made = (record: string) =>
      ebs.createVolume({
        clientToken: record,
        availabilityZone: AZ,
        spec: { sizeGiB: 10, volumeType: 'io2', multiAttach: true, iops: 3000 },
        tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: record },
      });
    const both = await made('removed-while-attached');
    const detachedOnly = await made('removed-after-detach');
    await clock.advance(10_000);
    await ebs.attachVolume({ ebsVolumeId: both.ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await ebs.attachVolume({ ebsVolumeId: both.ebsVolumeId, instanceId: OTHER_INSTANCE, device: '/dev/sdf' });
    await ebs.attachVolume({ ebsVolumeId: detachedOnly.ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdg' });
    await clock.advance(10_000);
    // EC2 still lists the attachment of a finished detach for a while, in state `detached`.
    const detachedFrom: Record<string, string> = { [both.ebsVolumeId]: OTHER_INSTANCE, [detachedOnly.ebsVolumeId]: INSTANCE };
    const asEc2Lists = (volume: ProviderVolume): ProviderVolume => ({
      ...volume,
      attachments: volume.attachments.map((a) => (a.instanceId === detachedFrom[volume.ebsVolumeId] ? { ...a, state: 'detached' } : a)),
    });
    const provider: VolumeProvider = providerOver(ebs, {
      listOwnedVolumes: async (options) => {
        const page = await ebs.listOwnedVolumes(options);
        return { ...page, items: page.items.map(asEc2Lists) };
      },
      describeVolumes: async (ids) => (await ebs.describeVolumes(ids)).map(asEc2Lists),
    });
    const log = new RecordingLog();
    const reconciler = new Reconciler({ store, queue, provider, clock, metrics: new RecordingMetrics(), log, config: { ownerTagValue: OWNER } });

    const report = await reconciler.run();

    expect(report.leaked.sort()).toEqual([both.ebsVolumeId, detachedOnly.ebsVolumeId].sort());
    expect(log.entries.filter((entry) => entry.message === 'volumes owned by this deployment have no record; not deleting them')).toEqual([
      {
        level: 'warn',
        message: 'volumes owned by this deployment have no record; not deleting them',
        attributes: { ebsVolumeIds: report.leaked, attachedTo: { [both.ebsVolumeId]: [INSTANCE] } },
      },
    ]);
  });
});
