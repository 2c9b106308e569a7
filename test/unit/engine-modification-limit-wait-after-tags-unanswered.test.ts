/**
 * A check that finds a modification over, on a volume whose CreateTags answer was never recorded
 * (`tagKeysSet`), writes what EC2 holds (the keys it set among them), so that unanswered CreateTags
 * holds nothing back any more: when the spec still asks for a modification EC2's limit forbids
 * (4 in 24 hours), the same write shows that wait in the status, not a step of tags it no longer needs.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { availableVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('a modification over, with a CreateTags answer unrecorded and EC2 limit reached', () => {
  it('the check writes the wait for the limit and drops the keys the CreateTags set', async () => {
    const h = await availableVolume({ team: 'storage' }, {});
    const made = await volumeOf(h);
    expect(made).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 10, tags: { team: 'storage' } } });

    // Four modifications started within the day (the latest ten minutes ago, its result not seen
    // yet); a fifth asked for; a CreateTags of the key EC2 holds sent, its answer never written.
    const now = h.clock.now();
    await h.store.update<VolumeRecord>(KEY, {
      spec: { ...made.spec, sizeGiB: 20 },
      generation: 2,
      status: { state: 'modifying', attempts: 0, updatedAt: iso(now - 10 * 60_000), operationStartedAt: iso(now - 10 * 60_000) },
      lastModificationStartedAt: iso(now - 10 * 60_000),
      earlierModificationStarts: [iso(now - 4 * HOUR), iso(now - 3 * HOUR), iso(now - 2 * HOUR)],
      tagKeysSet: ['team'],
    });

    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));

    const checked = await volumeOf(h);
    expect(checked.tagKeysSet).toBeUndefined();
    expect(checked.status.state).toBe('available');
    // EC2 allows a fifth modification 24 hours after the 4th most recent start.
    const windowEnd = Date.parse(checked.status.nextAttemptAt!);
    expect(windowEnd).toBeGreaterThanOrEqual(now - 4 * HOUR + 24 * HOUR);
    expect(windowEnd).toBeLessThan(now - 4 * HOUR + 25 * HOUR);
    expect(checked.status.message).toContain('EC2 allows 4 modifications per volume in any 24 hours');
  });
});
