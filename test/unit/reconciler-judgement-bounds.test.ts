/**
 * The bounds of the reconciler's judgement of a record: a claim holds it while the clock is before
 * its `expiresAt` (as the table's condition reads it: live while now < expiresAt), and work counts
 * as lost once it has been quiet, or its next attempt overdue, for `overdueAfterMs` (5 minutes).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

const world = () => reconcilerWorld({ availabilityZone: AZ });

/** A volume whose create message was lost, written at `at`. */
function lostCreate(volumeId: string, at: number, extra: Partial<VolumeRecord> = {}): VolumeRecord {
  const time = new Date(at).toISOString();
  return newVolume(volumeId, { status: { state: 'pending', attempts: 0, updatedAt: time }, version: 0, createdAt: time, ...extra });
}

describe('reconciler judgement bounds', () => {
  it('judges a record whose claim ends at the very time of the pass, and leaves alone one whose claim ends a millisecond later', async () => {
    const { clock, store, reconciler } = world();
    const passAt = clock.now() + 10 * MINUTE;
    await store.create(lostCreate('claim-ended', clock.now(), { claim: { owner: 'gone-executor', expiresAt: passAt } }));
    await store.create(lostCreate('claim-held', clock.now(), { claim: { owner: 'busy-executor', expiresAt: passAt + 1 } }));
    await clock.advanceTo(passAt);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/claim-ended', reason: expect.stringContaining('work pending') }]);
  });

  it('judges a record left alone for 5 minutes to the millisecond, and leaves alone one written a millisecond later', async () => {
    const { clock, store, reconciler } = world();
    const passAt = clock.now() + 10 * MINUTE;
    await store.create(lostCreate('quiet', passAt - 5 * MINUTE));
    await store.create(lostCreate('just-written', passAt - 5 * MINUTE + 1));
    await clock.advanceTo(passAt);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/quiet', reason: expect.stringContaining('work pending') }]);
  });

  it('nudges a retry overdue by 5 minutes to the millisecond, and leaves alone one due a millisecond later', async () => {
    const { clock, store, reconciler } = world();
    const passAt = clock.now() + 30 * MINUTE;
    const retry = (volumeId: string, dueAt: number) =>
      lostCreate(volumeId, clock.now(), {
        status: { state: 'pending', code: 'RequestTimeout', message: 'Request timed out', attempts: 1, updatedAt: new Date(clock.now()).toISOString(), nextAttemptAt: new Date(dueAt).toISOString() },
      });
    await store.create(retry('overdue', passAt - 5 * MINUTE));
    await store.create(retry('due-later', passAt - 5 * MINUTE + 1));
    await clock.advanceTo(passAt);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/overdue', reason: `next attempt was due at ${new Date(passAt - 5 * MINUTE).toISOString()}` }]);
  });
});
