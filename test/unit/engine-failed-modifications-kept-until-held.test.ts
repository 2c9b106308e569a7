/**
 * Modifications EC2 failed are counted on the record (`failedModifications`) until EC2 holds the
 * spec's size, type and performance: a check that brings the record in line with a volume still
 * short of the spec keeps the count.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { data1Created, harness, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const iso = (ms: number) => new Date(ms).toISOString();

describe('a check of a volume still short of the spec after failed modifications', () => {
  it('keeps the count of failed modifications; one that finds the spec held clears it', async () => {
    const h = harness();
    await data1Created(h, 10_000);
    const made = await volumeOf(h);
    expect(made).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 10 } });

    const failedModifications = { target: { sizeGiB: 20, volumeType: 'gp3' as const }, count: 1 };
    const startedAt = iso(h.clock.now() - 10 * 60_000);
    await h.store.update<VolumeRecord>(KEY, {
      spec: { ...made.spec, sizeGiB: 20 },
      generation: 2,
      status: { state: 'modifying', attempts: 1, updatedAt: startedAt, operationStartedAt: startedAt },
      failedModifications,
    });
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    const short = await volumeOf(h);
    expect(short.observed?.sizeGiB).toBe(10);
    expect(short.failedModifications).toEqual(failedModifications);

    // The client goes back to the size EC2 holds: held, the count goes.
    await h.store.update<VolumeRecord>(KEY, {
      spec: { ...made.spec, sizeGiB: 10 },
      generation: 3,
      status: { state: 'modifying', attempts: 1, updatedAt: startedAt, operationStartedAt: startedAt },
    });
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    expect((await volumeOf(h)).failedModifications).toBeUndefined();
  });
});
