/**
 * Each attach records the `createdAt` of the volume record it is for (`volumeCreatedAt`), so a
 * record removed and written again under the same id is told from the one the attach was made for
 * whatever the clocks say.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll, volumeOf } from './engine-fixtures.js';

describe('an attach', () => {
  it("records the createdAt of the volume record it attaches", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', { createdAt: '2025-12-31T23:00:00.000Z' }));
    await settleAll(h);
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    const attachment = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attachment.status.state).toBe('attached');
    expect(attachment.volumeCreatedAt).toBe('2025-12-31T23:00:00.000Z');
    expect(attachment.volumeCreatedAt).toBe((await volumeOf(h)).createdAt);
  });
});
