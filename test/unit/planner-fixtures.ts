/** Records as the planner's tests build them: one volume `data-1` and its attachment, at time `T`. */
import type { AttachmentRecord, AttachmentState, VolumeRecord, VolumeState } from '../../lib/domain/records.js';

export const T = '2026-01-01T00:00:00.000Z';

/** What a volume record holds once CreateVolume made its EC2 volume and a check saw it. */
export const created = { ebsVolumeId: 'vol-1', availabilityZone: 'eu-west-1a', observed: { sizeGiB: 10, volumeType: 'gp3' as const, tags: {} } };

export function volume(state: VolumeState, extra: Partial<VolumeRecord> = {}): VolumeRecord {
  return {
    kind: 'volume',
    volumeId: 'data-1',
    spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'eu-west-1a' },
    life: 'alive',
    generation: 1,
    status: { state, attempts: 0, updatedAt: T },
    version: 1,
    createdAt: T,
    ...extra,
  };
}

export function attachment(state: AttachmentState, extra: Partial<AttachmentRecord> = {}): AttachmentRecord {
  return {
    kind: 'attachment',
    volumeId: 'data-1',
    instanceId: 'i-0123456789abcdef0',
    life: 'alive',
    status: { state, attempts: 0, updatedAt: T },
    version: 1,
    createdAt: T,
    ...extra,
  };
}
