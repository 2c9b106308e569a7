/**
 * The reconciler reads in bulk only the volume records of a page's attachments that the scan has
 * not reached yet: one the scan read and found invalid is not read again (its attachments are left
 * as they are, as the executor would leave them).
 */
import { describe, expect, it } from 'vitest';
import type { RecordKey } from '../../lib/engine/ports.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { AZ, newAttachment, newVolume } from './engine-fixtures.js';

const OWNER = 'stack-test';

describe('reconciler: an attachment whose volume record the scan found invalid', () => {
  it('reads no volume record again, and leaves the attachment alone', async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const at = new Date(clock.now()).toISOString();
    store.putRaw({ ...newVolume('data-1', { createdAt: at, version: 0 }), spec: { sizeGiB: -1, volumeType: 'gp3', availabilityZone: AZ } });
    await store.create(newAttachment('data-1', { status: { state: 'pending', attempts: 0, updatedAt: at }, createdAt: at, version: 0 }));
    await clock.advance(10 * 60_000);
    const bulkReads: RecordKey[][] = [];
    const getMany = store.getMany.bind(store);
    store.getMany = async (keys) => {
      bulkReads.push([...keys]);
      return getMany(keys);
    };
    const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [AZ] });
    const reconciler = new Reconciler({ store, queue, provider: ebs, clock, metrics: new RecordingMetrics(), log: silentLog, config: { ownerTagValue: OWNER } });
    const report = await reconciler.run();
    expect(report).toMatchObject({ scanned: 2, invalid: 1 });
    expect(report.requeued.map((r) => r.key)).not.toContain('attachment/data-1/i-0123456789abcdef0');
    expect(bulkReads).toEqual([]);
  });
});
