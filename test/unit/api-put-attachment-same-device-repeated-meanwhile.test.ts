/**
 * A PUT of an attachment asking for a device, repeated by another client while the first request
 * runs: repeating it is harmless (docs/api.md), so the attachment the other wrote, asking for that
 * same device, does not count as another volume's attachment holding it.
 */
import { describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { GP3, INSTANCE_A, ManualClock, serviceWorld } from './api-fixtures.js';

describe('PUT attachment with a device, the same request landing meanwhile', () => {
  it('answers with the attachment the other request wrote, asking for that device (200), and writes nothing more', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    const other = new VolumeService({ store, clock: new ManualClock() });
    // The other request lands after this one read the volume's attachments, before it reads the instance's.
    const original = store.attachmentsOfInstance.bind(store);
    let raced = false;
    store.attachmentsOfInstance = async (instanceId) => {
      if (!raced) {
        raced = true;
        await other.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdf' });
      }
      return original(instanceId);
    };

    const answer = await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdf' });
    expect(raced).toBe(true);
    expect(answer.created).toBe(false);
    expect(answer.value).toMatchObject({ volumeId: 'data-01', instanceId: INSTANCE_A, requestedDevice: '/dev/sdf', generation: 1 });
    expect(await store.attachmentsOfVolume('data-01')).toHaveLength(1);
  });
});
