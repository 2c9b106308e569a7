/**
 * Attaches to one instance waiting for their device names are ranked among the live attachments
 * that wait for one: an attachment failed for good, holding no device, waits for none and takes
 * no rank.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('an attachment of the instance failed for good, without a device', () => {
  it('takes no rank: the attach waiting for a name takes the first free one', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    h.store.putRaw({ ...newAttachment('data-0'), status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', attempts: 1, updatedAt: new Date(h.clock.now()).toISOString() } });
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ device: '/dev/sdf', status: { state: 'attached' } });
  });
});
