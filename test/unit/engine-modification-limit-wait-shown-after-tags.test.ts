/**
 * A tag change made while the volume waits for EC2's modification limit (4 in 24 hours): the
 * CreateTags write settles the status, which no longer shows the wait; the wait is shown again at
 * once (a wait for EC2's rate limit is shown again by whichever write finds the status no longer
 * showing it), and the modification comes when the limit allows it.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { MODIFICATION_COOLDOWN_CODE } from '../../lib/engine/status.js';
import { availableVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('a tag change during a wait for the modification limit', () => {
  it('shows the wait again after CreateTags, and modifies when the limit allows', async () => {
    const h = await availableVolume({ team: 'storage' }, {});
    const made = await volumeOf(h);
    const now = h.clock.now();
    // Four modifications started within the day; a fifth asked for: the status shows the wait.
    const windowEnd = now - 4 * HOUR + 24 * HOUR;
    await h.store.update<VolumeRecord>(KEY, {
      spec: { ...made.spec, sizeGiB: 20 },
      generation: 2,
      lastModificationStartedAt: iso(now - HOUR),
      earlierModificationStarts: [iso(now - 4 * HOUR), iso(now - 3 * HOUR), iso(now - 2 * HOUR)],
    });
    await h.watch();
    await h.settle(5_000);
    await h.watch();
    const waiting = await volumeOf(h);
    expect(waiting.status).toMatchObject({ state: 'available', code: MODIFICATION_COOLDOWN_CODE });
    const shownEnd = Date.parse(waiting.status.nextAttemptAt!);
    expect(shownEnd).toBeGreaterThanOrEqual(windowEnd);
    expect(shownEnd).toBeLessThan(windowEnd + HOUR);

    // The client changes a tag: CreateTags is made at once, the modification still waits.
    await h.store.update<VolumeRecord>(KEY, { spec: { ...waiting.spec, tags: { team: 'platform' } }, generation: 3 });
    await h.watch();
    await h.settle(5_000);
    await h.watch();
    const tagged = await volumeOf(h);
    expect(tagged.observed?.tags).toEqual({ team: 'platform' });
    expect(tagged.status).toMatchObject({ state: 'available', code: MODIFICATION_COOLDOWN_CODE, nextAttemptAt: waiting.status.nextAttemptAt });
    expect(tagged.observed?.sizeGiB).toBe(10);

    // When the limit allows it, the modification is made, with nothing else to bring it.
    await h.clock.advance(shownEnd - h.clock.now() + 1_000);
    await h.settle(30_000, 5_000);
    await h.watch();
    await h.settle(30_000, 5_000);
    const modified = await volumeOf(h);
    expect(modified.status.state).toBe('modifying');
    expect(Date.parse(modified.status.operationStartedAt!)).toBeGreaterThanOrEqual(shownEnd);
    expect(Date.parse(modified.status.operationStartedAt!)).toBeLessThan(shownEnd + 60_000);
  });
});
