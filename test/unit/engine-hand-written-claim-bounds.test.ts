/**
 * README and docs/api.md: a claim written into the table by hand is refused (status `error`, code
 * `InvalidRecord`, no EC2 call) when it ends more than twice the lease (`claimLeaseMs`, 3 minutes)
 * after the clock; one within that, as a claim the system took may be with another function's
 * clock, is waited out as any claim.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { harness, newVolume, settleAll, volumeOf } from './engine-fixtures.js';

const LEASE_MS = DEFAULT_ENGINE_CONFIG.claimLeaseMs;

async function claimedAhead(aheadMs: number) {
  const h = harness();
  h.store.putRaw({ ...newVolume('data-1'), claim: { owner: 'someone', expiresAt: h.clock.now() + aheadMs } });
  await settleAll(h, 1);
  return h;
}

describe('a claim written into the table by hand', () => {
  it('is the default lease of 3 minutes the bound counts in', () => {
    expect(LEASE_MS).toBe(3 * 60_000);
  });

  it('ending more than twice the lease ahead of the clock is refused, naming the claim, with no EC2 call', async () => {
    const h = await claimedAhead(2 * LEASE_MS + 1_000);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^claim\.expiresAt: ends at .*beyond the 180 s lease/) });
    expect(h.ebs.calls.CreateVolume).toBe(0);
  });

  it('ending beyond one lease but within two is taken as a claim: not refused, and the volume is created once it lapses', async () => {
    const h = await claimedAhead(LEASE_MS + 60_000);
    const held = await volumeOf(h);
    expect(held.status.code).toBeUndefined();
    expect(held.status.state).toBe('pending');
    await h.clock.advance(2 * LEASE_MS);
    // The record's next change (a client's, or the reconciler's look) is acted on: here, the watcher sees it again.
    h.store.putRaw({ ...(await volumeOf(h)) });
    await settleAll(h);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
  });
});
