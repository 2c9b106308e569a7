/** Records the memory store's tests write: a pending gp3 volume and a pending attachment, both made at `at`. */
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';

export const at = '2026-01-01T00:00:00.000Z';

/** A pending 10 GiB gp3 volume record in us-east-1a, made at `madeAt` (`at` unless given). */
export const volume = (volumeId: string, madeAt: string = at, overrides: Partial<VolumeRecord> = {}): VolumeRecord => ({
  kind: 'volume',
  volumeId,
  spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
  life: 'alive',
  generation: 1,
  status: { state: 'pending', attempts: 0, updatedAt: madeAt },
  version: 0,
  createdAt: madeAt,
  ...overrides,
});

export const attachment = (volumeId: string, instanceId: string): AttachmentRecord => ({
  kind: 'attachment',
  volumeId,
  instanceId,
  life: 'alive',
  status: { state: 'pending', attempts: 0, updatedAt: at },
  version: 0,
  createdAt: at,
});
