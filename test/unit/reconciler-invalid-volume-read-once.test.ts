/**
 * The reconciler reads in bulk only the volume records of a page's attachments that the scan has
 * not reached yet: one the scan read and found invalid is not read again (its attachments are left
 * as they are, as the executor would leave them).
 */
import { describe, expect, it } from 'vitest';
import type { RecordKey } from '../../lib/engine/ports.js';
import { AZ, newAttachment, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler: an attachment whose volume record the scan found invalid', () => {
  it('reads no volume record again, and leaves the attachment alone', async () => {
    const { clock, store, reconciler } = reconcilerWorld({ availabilityZone: AZ });
    const at = new Date(clock.now()).toISOString();
    store.putRaw({ ...newVolume('data-1', { createdAt: at, version: 0 }), spec: { sizeGiB: -1, volumeType: 'gp3', availabilityZone: AZ } });
    await store.create(newAttachment('data-1', { status: { state: 'pending', attempts: 0, updatedAt: at }, createdAt: at, version: 0 }));
    await clock.advance(10 * MINUTE);
    const bulkReads: RecordKey[][] = [];
    const getMany = store.getMany.bind(store);
    store.getMany = async (keys) => {
      bulkReads.push([...keys]);
      return getMany(keys);
    };
    const report = await reconciler.run();
    expect(report).toMatchObject({ scanned: 2, invalid: 1 });
    expect(report.requeued.map((r) => r.key)).not.toContain('attachment/data-1/i-0123456789abcdef0');
    expect(bulkReads).toEqual([]);
  });
});
