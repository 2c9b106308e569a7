import { describe, expect, it } from 'vitest';
import { allocateDevices } from '../../lib/engine/devices.js';

const pool = ['/dev/xvdf', '/dev/xvdg', '/dev/xvdh', '/dev/xvdi'];

describe('a ranked attach whose name went to an attach that fell back to the first free one', () => {
  it('takes another name, so no two attaches in the batch share one', () => {
    // Two attaches read the same rank (a lagging view); the second falls back to the first free
    // name, which is the name at the third attach's rank.
    const allocated = allocateDevices(
      [
        { id: 'a', instanceId: 'i-1', rank: 0 },
        { id: 'b', instanceId: 'i-1', rank: 0 },
        { id: 'c', instanceId: 'i-1', rank: 1 },
      ],
      new Map(),
      pool,
    );
    const devices = ['a', 'b', 'c'].map((id) => {
      const allocation = allocated.get(id);
      return allocation?.ok ? allocation.device : undefined;
    });
    expect(devices).toEqual(['/dev/xvdf', '/dev/xvdg', '/dev/xvdh']);
  });
});
