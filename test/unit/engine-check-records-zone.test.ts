/**
 * A check records the AZ EC2 reports for the volume (`zoneOf`): a record that does not hold it
 * (written into the table naming its EC2 volume, say) learns it from the check.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { AZ, data1Created, harness, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('a check of a volume record without its AZ', () => {
  it('records the AZ EC2 reports', async () => {
    const h = harness();
    await data1Created(h, 10_000);
    const made = await volumeOf(h);
    expect(made).toMatchObject({ status: { state: 'available' }, availabilityZone: AZ });

    const startedAt = new Date(h.clock.now() - 10 * 60_000).toISOString();
    await h.store.update<VolumeRecord>(KEY, { availabilityZone: null, status: { state: 'modifying', attempts: 0, updatedAt: startedAt, operationStartedAt: startedAt } });
    expect((await volumeOf(h)).availabilityZone).toBeUndefined();
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, availabilityZone: AZ });
  });
});
