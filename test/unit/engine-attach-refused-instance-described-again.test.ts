/**
 * An attach refused on a description of its instance that no longer holds (the instance stopping
 * outside the system) waits for its retry; the instance's other attaches taken up meanwhile describe
 * it afresh rather than reuse that description, so none is refused on it again.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, INSTANCE, newAttachment, settleAll, threeVolumesDataOneAttached } from './engine-fixtures.js';

describe("an attach refused on a stale description of its instance", () => {
  it("leaves the instance's next attach to describe it afresh: one refused AttachVolume, not two", async () => {
    const h = harness();
    await threeVolumesDataOneAttached(h);
    const attachesBefore = h.ebs.calls.AttachVolume ?? 0;

    // Stopping outside the system while this environment's description still says running.
    h.ebs.setInstanceState(INSTANCE, 'stopping');
    await h.store.create(newAttachment('data-2'));
    await h.watch();
    await h.drain();
    const refused = (await h.store.get(attachmentKey('data-2'))) as AttachmentRecord;
    expect(refused.status).toMatchObject({ state: 'pending', code: 'IncorrectInstanceState', attempts: 1 });
    expect((h.ebs.calls.AttachVolume ?? 0) - attachesBefore).toBe(1);

    await h.store.create(newAttachment('data-3'));
    await h.watch();
    await h.drain();
    expect((h.ebs.calls.AttachVolume ?? 0) - attachesBefore).toBe(1);
    expect((await h.store.get(attachmentKey('data-3')))!.status.state).toBe('pending');

    h.ebs.setInstanceState(INSTANCE, 'stopped');
    await settleAll(h, 12);
    for (const id of ['data-2', 'data-3']) expect((await h.store.get(attachmentKey(id)))!.status.state).toBe('attached');
  });
});
