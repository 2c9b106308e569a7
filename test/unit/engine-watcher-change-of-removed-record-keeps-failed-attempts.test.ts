/**
 * A volume at rest given another spec drops the failed attempts toward the old one, but only those
 * the change found (`sameRun`): a spec change of a record removed from the table since, delivered
 * late once its client wrote the record again under its id, is no change of the record as read. It
 * leaves the new record's failed attempts and the wait its status shows as they are.
 */
import { describe, expect, it } from 'vitest';
import { availableVolume, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';
import { modify } from './watcher-fixtures.js';

describe('a spec change delivered late once its record was removed and written again under its id', () => {
  it("leaves the new record's failed attempts and its wait for EC2's limit on modifications as they are", async () => {
    const h = await availableVolume({ team: 'a' });
    const removed = await volumeOf(h);
    // The first record's spec change, as the stream carries it: its status at rest, no operation started.
    const respecified = modify(removed, { ...removed, spec: { ...removed.spec, tags: { team: 'b' } }, generation: 2, version: removed.version + 1 });
    expect(removed.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(removed.status.operationStartedAt).toBeUndefined();

    await h.store.remove(volumeKey('data-1'));
    await h.clock.advance(60_000);
    const now = h.clock.now();
    const startedAt = new Date(now - 3_600_000).toISOString();
    // Written again: a grow that failed once, then held back by EC2's limit (a wait keeps the attempts, with no operation start).
    const waiting = {
      state: 'available' as const,
      code: 'VolumeModificationRateExceeded',
      message: 'EC2 allows 4 modifications per volume in any 24 hours',
      attempts: 1,
      updatedAt: new Date(now).toISOString(),
      nextAttemptAt: new Date(now - 3_600_000 + 24 * 3_600_000 + 5_000).toISOString(),
    };
    await h.store.create(
      newVolume(
        'data-1',
        {
          ebsVolumeId: removed.ebsVolumeId!,
          createdAt: new Date(now).toISOString(),
          generation: 2,
          lastModificationStartedAt: startedAt,
          earlierModificationStarts: [startedAt, startedAt, startedAt],
          status: waiting,
        },
        { ...removed.spec, sizeGiB: 20 },
      ),
    );
    const written = await volumeOf(h);
    h.changes.splice(0);

    await h.watcher.handle([respecified]);

    expect((await h.store.get(volumeKey('data-1')))?.status).toEqual(written.status);
    expect(written.status).toEqual(waiting);
  });
});
