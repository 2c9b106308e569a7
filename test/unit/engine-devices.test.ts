import { describe, expect, it } from 'vitest';
import { allocateDevices, deviceSlot, type DeviceRequest } from '../../lib/engine/devices.js';
import { DEFAULT_DEVICE_NAMES } from '../../lib/engine/config.js';

describe('device allocation', () => {
  it('compares names by slot so /dev/sdf and /dev/xvdf clash', () => {
    expect(deviceSlot('/dev/sdf')).toBe('f');
    expect(deviceSlot('/dev/xvdf')).toBe('f');
    expect(deviceSlot('xvdba')).toBe('ba');
    expect(deviceSlot('/dev/sda1')).toBe('a1');
  });

  it('gives 20 attaches to one instance 20 distinct names that avoid its mappings', () => {
    const requests: DeviceRequest[] = Array.from({ length: 20 }, (_, i) => ({ id: `a${i}`, instanceId: 'i-1' }));
    const used = new Map([['i-1', ['/dev/xvda', '/dev/xvdf', '/dev/sdh']]]);
    const result = allocateDevices(requests, used, DEFAULT_DEVICE_NAMES);
    const devices = requests.map((r) => {
      const allocation = result.get(r.id)!;
      if (!allocation.ok) throw new Error(allocation.message);
      return allocation.device;
    });
    expect(new Set(devices.map(deviceSlot)).size).toBe(20);
    expect(devices).not.toContain('/dev/sdf');
    expect(devices).not.toContain('/dev/sdh');
    expect(devices[0]).toBe('/dev/sdg');
  });

  it('gives each attach the free name at its rank, so environments naming different attaches at once pick different names', () => {
    const used = new Map([['i-1', ['/dev/xvda', '/dev/sdg']]]);
    // Two environments, each with one of the two attaches both see waiting (ranks 0 and 1).
    const first = allocateDevices([{ id: 'a', instanceId: 'i-1', rank: 0 }], used, DEFAULT_DEVICE_NAMES);
    const second = allocateDevices([{ id: 'b', instanceId: 'i-1', rank: 1 }], used, DEFAULT_DEVICE_NAMES);
    expect(first.get('a')).toEqual({ ok: true, device: '/dev/sdf' });
    expect(second.get('b')).toEqual({ ok: true, device: '/dev/sdh' });
    // In one batch too; a rank past the free names, or whose name is taken, takes the first free one.
    const batch = allocateDevices(
      [
        { id: 'b', instanceId: 'i-1', rank: 1 },
        { id: 'a', instanceId: 'i-1', rank: 0 },
        { id: 'c', instanceId: 'i-1', rank: 500 },
        { id: 'd', instanceId: 'i-1', rank: 0 },
      ],
      used,
      DEFAULT_DEVICE_NAMES,
    );
    expect([...batch.values()]).toEqual([
      { ok: true, device: '/dev/sdh' },
      { ok: true, device: '/dev/sdf' },
      { ok: true, device: '/dev/sdi' },
      { ok: true, device: '/dev/sdj' },
    ]);
  });

  it('ranks index the names free before the batch names any, whatever it names first', () => {
    const used = new Map([['i-1', ['/dev/xvda']]]);
    // An attach the index does not show yet comes first in the batch; the ranked one still takes the name at its rank.
    const batch = allocateDevices([{ id: 'late', instanceId: 'i-1' }, { id: 'x', instanceId: 'i-1', rank: 0 }], used, DEFAULT_DEVICE_NAMES);
    expect(batch.get('x')).toEqual({ ok: true, device: '/dev/sdf' });
    expect(batch.get('late')).toEqual({ ok: true, device: '/dev/sdg' });
  });

  it('keeps the pool away from names other attachments to the instance asked for, and honours a request for one', () => {
    const reserved = new Map([['i-1', ['/dev/sdf', '/dev/xvdh']]]);
    const result = allocateDevices(
      [
        { id: 'auto', instanceId: 'i-1', rank: 0 },
        { id: 'next', instanceId: 'i-1' },
        { id: 'asked', instanceId: 'i-1', requestedDevice: '/dev/sdh' },
      ],
      new Map([['i-1', ['/dev/xvda']]]),
      DEFAULT_DEVICE_NAMES,
      reserved,
    );
    expect(result.get('auto')).toEqual({ ok: true, device: '/dev/sdg' });
    expect(result.get('next')).toEqual({ ok: true, device: '/dev/sdi' });
    expect(result.get('asked')).toEqual({ ok: true, device: '/dev/sdh' });
  });

  it('allocates per instance independently', () => {
    const result = allocateDevices(
      [
        { id: 'x', instanceId: 'i-1' },
        { id: 'y', instanceId: 'i-2' },
      ],
      new Map(),
      DEFAULT_DEVICE_NAMES,
    );
    expect(result.get('x')).toEqual({ ok: true, device: '/dev/sdf' });
    expect(result.get('y')).toEqual({ ok: true, device: '/dev/sdf' });
  });

  it('fails only the attaches past the free names', () => {
    const pool = ['/dev/sdf', '/dev/sdg', '/dev/sdh'];
    const requests: DeviceRequest[] = Array.from({ length: 4 }, (_, i) => ({ id: `a${i}`, instanceId: 'i-1' }));
    const result = allocateDevices(requests, new Map([['i-1', ['/dev/xvdg']]]), pool);
    expect(result.get('a0')).toEqual({ ok: true, device: '/dev/sdf' });
    expect(result.get('a1')).toEqual({ ok: true, device: '/dev/sdh' });
    expect(result.get('a2')).toEqual({ ok: false, code: 'NoFreeDeviceName', message: 'instance i-1 has no free device name left (3 in the pool)' });
    expect(result.get('a3')).toMatchObject({ ok: false, code: 'NoFreeDeviceName' });
  });

  it('honours requested names first and keeps the pool away from them', () => {
    const result = allocateDevices(
      [
        { id: 'auto', instanceId: 'i-1' },
        { id: 'asked', instanceId: 'i-1', requestedDevice: '/dev/sdf' },
        { id: 'clash', instanceId: 'i-1', requestedDevice: '/dev/xvdf' },
        // A name in use on the instance is honoured too: EC2 decides whether it is free.
        { id: 'in use', instanceId: 'i-1', requestedDevice: '/dev/sdk' },
      ],
      new Map([['i-1', ['/dev/xvdk']]]),
      DEFAULT_DEVICE_NAMES,
    );
    expect(result.get('asked')).toEqual({ ok: true, device: '/dev/sdf' });
    expect(result.get('auto')).toEqual({ ok: true, device: '/dev/sdg' });
    expect(result.get('clash')).toMatchObject({ ok: false, code: 'DeviceNameClash' });
    expect(result.get('in use')).toEqual({ ok: true, device: '/dev/sdk' });
  });
});
