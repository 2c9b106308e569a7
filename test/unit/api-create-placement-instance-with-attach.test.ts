/**
 * `POST /volumes` with `attachTo`: the volume goes in the instance's AZ only when the spec names no
 * placement of its own. A spec naming `placementInstanceId` keeps it, whatever instance `attachTo` names.
 */
import { describe, expect, it } from 'vitest';
import { INSTANCE_A, INSTANCE_B, serviceWorld } from './api-fixtures.js';

describe('a new volume with attachTo', () => {
  it('keeps the placementInstanceId its spec names', async () => {
    const { service } = serviceWorld();
    const created = await service.createVolume({
      volumeId: 'data-01',
      spec: { sizeGiB: 20, volumeType: 'gp3', placementInstanceId: INSTANCE_B },
      attachTo: { instanceId: INSTANCE_A },
    });
    expect(created.value.spec).toStrictEqual({ sizeGiB: 20, volumeType: 'gp3', placementInstanceId: INSTANCE_B });
    expect(created.value.attachments.map((a) => a.instanceId)).toEqual([INSTANCE_A]);
  });

  it('is placed by the attachTo instance when its spec names no placement', async () => {
    const { service } = serviceWorld();
    const created = await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3' }, attachTo: { instanceId: INSTANCE_A } });
    expect(created.value.spec).toStrictEqual({ sizeGiB: 20, volumeType: 'gp3', placementInstanceId: INSTANCE_A });
  });
});
