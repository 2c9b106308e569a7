/**
 * Names among an instance's block-device mappings with the `hd` and `nvme` prefixes: `/dev/hdf`
 * (older, paravirtual instances) occupies the slot `/dev/sdf` and `/dev/xvdf` share, so neither is
 * handed out; an NVMe name (`/dev/nvme0n1`) occupies no slot of the pool and holds no name back.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEVICE_NAMES } from '../../lib/engine/config.js';
import { allocateDevices, deviceSlot } from '../../lib/engine/devices.js';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

const PARAVIRTUAL = 'i-0aaaaaaaaaaaaaaa1';
const NITRO = 'i-0bbbbbbbbbbbbbbb2';

describe('device names with the hd and nvme prefixes in an instance mappings', () => {
  it('read as slots: /dev/hdf as f, /dev/hda1 as a1, an NVMe name as the rest after nvme', () => {
    expect(deviceSlot('/dev/hdf')).toBe('f');
    expect(deviceSlot('hdf')).toBe('f');
    expect(deviceSlot('/dev/hda1')).toBe('a1');
    expect(deviceSlot('/dev/nvme0n1')).toBe('0n1');
    expect(deviceSlot('/dev/nvme1n1p1')).toBe('1n1p1');
    expect(deviceSlot('/dev/vdb')).toBe('vdb');
  });

  it('allocation: /dev/hdf and /dev/hdg keep /dev/sdf and /dev/sdg back; NVMe names keep nothing back', () => {
    const used = new Map([
      [PARAVIRTUAL, ['/dev/hda1', '/dev/hdf', '/dev/hdg']],
      [NITRO, ['/dev/nvme0n1', '/dev/nvme1n1', '/dev/nvme5n1']],
    ]);
    const result = allocateDevices(
      [
        { id: 'pv', instanceId: PARAVIRTUAL },
        { id: 'nitro-1', instanceId: NITRO },
        { id: 'nitro-2', instanceId: NITRO },
      ],
      used,
      DEFAULT_DEVICE_NAMES,
    );
    expect(result.get('pv')).toEqual({ ok: true, device: '/dev/sdh' });
    expect(result.get('nitro-1')).toEqual({ ok: true, device: '/dev/sdf' });
    expect(result.get('nitro-2')).toEqual({ ok: true, device: '/dev/sdg' });
  });

  it('through the executor: an attach to an instance whose mappings hold /dev/hda and /dev/hdf is given /dev/sdg; one whose mappings hold NVMe names, /dev/sdf', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: PARAVIRTUAL, availabilityZone: AZ, deviceNames: ['/dev/hda', '/dev/hdf'] });
    h.ebs.addInstance({ instanceId: NITRO, availabilityZone: AZ, deviceNames: ['/dev/nvme0n1', '/dev/nvme1n1'] });
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    await settleAll(h, 3);
    await h.store.create(newAttachment('data-1', { instanceId: PARAVIRTUAL }));
    await h.store.create(newAttachment('data-2', { instanceId: NITRO }));
    await settleAll(h, 3);
    expect(await h.store.get(attachmentKey('data-1', PARAVIRTUAL))).toMatchObject({ device: '/dev/sdg', status: { state: 'attached' } });
    expect(await h.store.get(attachmentKey('data-2', NITRO))).toMatchObject({ device: '/dev/sdf', status: { state: 'attached' } });
  });
});
