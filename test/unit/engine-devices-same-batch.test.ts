import { describe, expect, it } from 'vitest';
import { allocateDevices } from '../../lib/engine/devices.js';
import { DEFAULT_DEVICE_NAMES } from '../../lib/engine/config.js';

describe('device allocation: requested names within one batch', () => {
  it('refuses the second of two attaches in one batch asking for the same slot on an instance whose mappings are not known', () => {
    const result = allocateDevices(
      [
        { id: 'a', instanceId: 'i-2', requestedDevice: '/dev/sdf' },
        { id: 'b', instanceId: 'i-2', requestedDevice: '/dev/xvdf' },
        { id: 'c', instanceId: 'i-2' },
      ],
      new Map(),
      DEFAULT_DEVICE_NAMES,
    );
    expect(result.get('a')).toEqual({ ok: true, device: '/dev/sdf' });
    expect(result.get('b')).toEqual({ ok: false, code: 'DeviceNameClash', message: 'device /dev/xvdf is requested by another attachment to i-2 in the same batch' });
    // The unrequested one keeps off the slot taken.
    expect(result.get('c')).toEqual({ ok: true, device: '/dev/sdg' });
  });
});
