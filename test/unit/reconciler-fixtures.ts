/** The reconciler's test world: memory backends on a fake clock, EC2 owned by `OWNER`, and a pending gp3 volume record. */
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingMetrics, silentLog, type MemoryRateBudget, type RecordingLog } from '../../lib/memory/index.js';

export const OWNER = 'stack-test';
export const MINUTE = 60_000;

export function reconcilerWorld(options: { pageSize?: number; rateBudget?: MemoryRateBudget; log?: RecordingLog } = {}) {
  const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
  const store = new MemoryRecordStore();
  const queue = new MemoryOperationQueue({ clock });
  const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: ['us-east-1a'] });
  const metrics = new RecordingMetrics();
  const reconciler = new Reconciler({
    store,
    queue,
    provider: ebs,
    clock,
    metrics,
    log: options.log ?? silentLog,
    config: { ownerTagValue: OWNER },
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
    ...(options.rateBudget ? { rateBudget: options.rateBudget } : {}),
  });
  return { clock, store, queue, ebs, metrics, reconciler };
}

/** A pending 10 GiB gp3 volume record in us-east-1a, made at `at`. */
export function volume(volumeId: string, at: string, overrides: Partial<VolumeRecord> = {}): VolumeRecord {
  return {
    kind: 'volume',
    volumeId,
    spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
    life: 'alive',
    generation: 1,
    status: { state: 'pending', attempts: 0, updatedAt: at },
    version: 0,
    createdAt: at,
    ...overrides,
  };
}
