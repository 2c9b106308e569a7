/** Records the memory store's tests write: a pending gp3 volume and a pending attachment, both made at `at`. */
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingLog, RecordingMetrics } from '../../lib/memory/index.js';

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

/** In-memory AWS holding data-1 (`volume`, version 1, made at `at`), and the dependencies a function's handler is built from. */
export async function inMemoryAwsWithVolume() {
  const clock = new FakeClock(Date.parse(at));
  const store = new MemoryRecordStore();
  const queue = new MemoryOperationQueue({ clock });
  const provider = new MemoryEbs({ clock, ownerTagValue: 'test', availabilityZones: ['us-east-1a'] });
  const log = new RecordingLog();
  await store.create(volume('data-1', at, { version: 1 }));
  return { store, provider, log, deps: { store, queue, provider, clock, metrics: new RecordingMetrics(), log, config: { ownerTagValue: 'test' } } };
}
