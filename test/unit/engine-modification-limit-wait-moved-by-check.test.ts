/**
 * A volume whose status shows a wait for EC2's modification limit (4 in 24 hours) until a time the
 * recorded modification starts no longer give: a check writes the wait's true end along with what
 * it saw, and that write brings the modification back then (nothing else sends it: the message of
 * the wait as it was shown comes at the old time, which is not the limit's end).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { MODIFICATION_COOLDOWN_CODE } from '../../lib/engine/status.js';
import { availableVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('a check of a volume whose shown wait for the modification limit ends at another time', () => {
  it('writes the limit\'s end and modifies the volume then', async () => {
    const h = await availableVolume({ team: 'storage' }, {});
    const made = await volumeOf(h);
    const now = h.clock.now();
    const windowEnd = now - 4 * HOUR + 24 * HOUR;
    const shownEnd = now + HOUR;
    await h.store.update<VolumeRecord>(KEY, {
      spec: { ...made.spec, sizeGiB: 20 },
      generation: 2,
      lastModificationStartedAt: iso(now - HOUR),
      earlierModificationStarts: [iso(now - 4 * HOUR), iso(now - 3 * HOUR), iso(now - 2 * HOUR)],
      status: { ...made.status, code: MODIFICATION_COOLDOWN_CODE, message: 'waiting', nextAttemptAt: iso(shownEnd), updatedAt: iso(now) },
    });
    h.changes.length = 0;

    await h.executor.run(h.batchOf({ op: 'check-volume', key: KEY, reason: 'attachment changed' }));
    const checked = await volumeOf(h);
    expect(checked.status).toMatchObject({ state: 'available', code: MODIFICATION_COOLDOWN_CODE });
    const writtenEnd = Date.parse(checked.status.nextAttemptAt!);
    expect(writtenEnd).toBeGreaterThanOrEqual(windowEnd);
    expect(writtenEnd).toBeLessThan(windowEnd + HOUR);

    await h.clock.advance(writtenEnd - h.clock.now() + 1_000);
    await h.settle(60_000, 5_000);
    const modified = await volumeOf(h);
    expect(modified.status.state).toBe('modifying');
    expect(Date.parse(modified.status.operationStartedAt!)).toBeGreaterThanOrEqual(writtenEnd);
  });
});
