/**
 * docs/state-machines.md's `creating → deleted` row (`removed-uncreated`): a dying volume in
 * `creating` with no CreateVolume outstanding is removed without an EC2 call, whether EC2 refused
 * its request or none was recorded as sent (a record written so into the table).
 */
import { describe, expect, it } from 'vitest';
import { VOLUME_TRANSITIONS } from '../../lib/domain/state-machines.js';
import { harness, newVolume, settleAll, volumeKey } from './engine-fixtures.js';

describe('a dying volume in creating with no CreateVolume outstanding', () => {
  it('is removed without a CreateVolume, as the row says, when no request was recorded as sent', async () => {
    const h = harness();
    const updatedAt = new Date(h.clock.now()).toISOString();
    await h.store.create(newVolume('data-1', { life: 'dying', status: { state: 'creating', attempts: 1, updatedAt } }));
    await settleAll(h);

    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.createRequests).toEqual([]);
    const row = VOLUME_TRANSITIONS.find((each) => each.from === 'creating' && each.event === 'removed-uncreated');
    expect(row?.to).toBe('deleted');
    expect(row?.why).toMatch(/none was recorded as sent/);
  });
});
