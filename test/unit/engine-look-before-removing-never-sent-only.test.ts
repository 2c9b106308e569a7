/**
 * `looksBeforeRemoving`: only a dying attachment that never sent AttachVolume (pending or in error,
 * no device) looks at EC2 before it is removed. One whose attach was sent (attaching, attached,
 * detaching) follows its own check or detach, device recorded or not, and a live one is not being
 * removed: neither is a look before removing, which the watcher would turn into a removal with no
 * EC2 call while another record holds the volume.
 */
import { describe, expect, it } from 'vitest';
import { looksBeforeRemoving } from '../../lib/engine/planner.js';
import { attachment, created, volume } from './planner-fixtures.js';

describe('a look before removing an attachment', () => {
  const inUse = volume('in-use', created);

  it('is made by a dying one pending or in error without a device, its volume in use', () => {
    for (const state of ['pending', 'error'] as const) expect(looksBeforeRemoving(attachment(state, { life: 'dying' }), inUse), state).toBe(true);
  });

  it('is not made by a dying one whose attach was sent, even with no device recorded', () => {
    for (const state of ['attaching', 'attached', 'detaching'] as const) expect(looksBeforeRemoving(attachment(state, { life: 'dying' }), inUse), state).toBe(false);
  });

  it('is not made by a live one', () => {
    for (const state of ['pending', 'error'] as const) expect(looksBeforeRemoving(attachment(state), inUse), state).toBe(false);
  });
});
