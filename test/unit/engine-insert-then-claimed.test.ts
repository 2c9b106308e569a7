/**
 * A record put whole into the table in a state of an operation under way gets a check of its own
 * (no chain of checks runs on it yet), but only while it is as its client wrote it: once the
 * executor has claimed it (a claim written, its status not yet), the check the same batch brings
 * is a look, since the executor's own work on it has begun.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('a record put whole into the table and claimed by the executor in the same batch', () => {
  it('gets a look, not a check that starts a chain of its own', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'modifying', attempts: 0, updatedAt: at, operationStartedAt: at } }));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { claim: { owner: 'owner-1', expiresAt: h.clock.now() + 60_000 } });
    expect(h.changes.map((change) => change.eventName)).toEqual(['INSERT', 'MODIFY']);

    await h.watch();

    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume', nudge: true })]);
  });
});
