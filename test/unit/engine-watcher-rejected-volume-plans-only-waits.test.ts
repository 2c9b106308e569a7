/**
 * A volume record rejected as invalid is a volume in error to its attachments: those waiting for
 * it say what they wait for now. A wait alone is written; until its client puts the record right,
 * nothing else is planned from it, not even the look an attachment that kept its device would get
 * from a volume it could use.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { attachmentOf, availableVolume, newAttachment, volumeKey, volumeOf } from './engine-fixtures.js';

const HOUR = 3_600_000;

describe('a volume record rejected for a claim the system did not write', () => {
  it('plans no operation for its attachment that kept its device, and leaves that attachment as it is', async () => {
    const h = await availableVolume({ team: 'a' });
    expect((await volumeOf(h)).ebsVolumeId).toBeDefined();
    const at = new Date(h.clock.now()).toISOString();
    // An attach retried after an error: pending, its device kept, no next attempt of its own.
    const retried: AttachmentRecord = newAttachment('data-1', { device: '/dev/sdf', generation: 2, retriedGeneration: 2, status: { state: 'pending', attempts: 0, updatedAt: at } });
    h.store.putRaw(retried);
    const kept = await attachmentOf(h);
    h.changes.splice(0);
    expect(h.queued()).toEqual([]);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { claim: { owner: 'someone', expiresAt: h.clock.now() + 10 * HOUR } });
    await h.watch();

    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^claim\.expiresAt: /) });
    expect(await attachmentOf(h)).toEqual(kept);
    expect(h.queued()).toEqual([]);
  });
});
