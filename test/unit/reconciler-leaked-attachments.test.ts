/**
 * The reconciler's leak warning names, for each leaked volume still attached, the instances it is
 * attached to (`attachedTo`, README: "for those still attached, the instances"). An attachment EC2
 * reports as `detached` (it lists one for a while once a detach is done) holds nothing: it is not
 * named, and a volume with only such attachments is listed without any.
 */
import { describe, expect, it } from 'vitest';
import type { ProviderVolume } from '../../lib/engine/ports.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { AZ, INSTANCE, OTHER_INSTANCE, providerOver } from './engine-fixtures.js';
import { reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler leak warning', () => {
  it('names the instances a leaked volume is attached to, not those EC2 shows it detached from', async () => {
    // EC2 still lists the attachment of a finished detach for a while, in state `detached`.
    const detachedFrom: Record<string, string> = {};
    const asEc2Lists = (volume: ProviderVolume): ProviderVolume => ({
      ...volume,
      attachments: volume.attachments.map((a) => (a.instanceId === detachedFrom[volume.ebsVolumeId] ? { ...a, state: 'detached' } : a)),
    });
    const log = new RecordingLog();
    const { clock, ebs, reconciler, owned } = reconcilerWorld({
      availabilityZone: AZ,
      instances: [INSTANCE, OTHER_INSTANCE],
      log,
      provider: (ebs) =>
        providerOver(ebs, {
          listOwnedVolumes: async (options) => {
            const page = await ebs.listOwnedVolumes(options);
            return { ...page, items: page.items.map(asEc2Lists) };
          },
          describeVolumes: async (ids) => (await ebs.describeVolumes(ids)).map(asEc2Lists),
        }),
    });
    const made = (record: string) => owned(record, { sizeGiB: 10, volumeType: 'io2', multiAttach: true, iops: 3000 });
    const both = await made('removed-while-attached');
    const detachedOnly = await made('removed-after-detach');
    await clock.advance(10_000);
    await ebs.attachVolume({ ebsVolumeId: both.ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await ebs.attachVolume({ ebsVolumeId: both.ebsVolumeId, instanceId: OTHER_INSTANCE, device: '/dev/sdf' });
    await ebs.attachVolume({ ebsVolumeId: detachedOnly.ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdg' });
    await clock.advance(10_000);
    Object.assign(detachedFrom, { [both.ebsVolumeId]: OTHER_INSTANCE, [detachedOnly.ebsVolumeId]: INSTANCE });

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
