/** A volume asked for in a Wavelength Zone, by its zone name, is created and attached there like one in an AZ. */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll, volumeOf } from './engine-fixtures.js';

const WAVELENGTH_ZONE = 'us-east-1-wl1-bos-wlz-1';
const WAVELENGTH_INSTANCE = 'i-0aaaaaaaaaaaaaaa1';

describe('a volume in a Wavelength Zone', () => {
  it('is created in the zone named and attached to an instance there', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: WAVELENGTH_INSTANCE, availabilityZone: WAVELENGTH_ZONE });
    await h.store.create(newVolume('data-1', {}, { availabilityZone: WAVELENGTH_ZONE }));
    await h.store.create(newAttachment('data-1', { instanceId: WAVELENGTH_INSTANCE }));
    await settleAll(h);

    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('in-use');
    expect(h.createRequests.map((request) => request.availabilityZone)).toEqual([WAVELENGTH_ZONE]);
    const attachment = (await h.store.get(attachmentKey('data-1', WAVELENGTH_INSTANCE))) as AttachmentRecord;
    expect(attachment.status.state).toBe('attached');
    expect(h.ebs.volume(volume.ebsVolumeId!)?.attachments.map((a) => a.instanceId)).toEqual([WAVELENGTH_INSTANCE]);
  });
});
