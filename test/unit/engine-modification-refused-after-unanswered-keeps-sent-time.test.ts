/**
 * A ModifyVolume whose answer was lost records its time (`modificationSentAt`) so the spec is not
 * taken as held, nor another modification sent, without looking at EC2's modifications. When a
 * later ModifyVolume is refused for certain, that refusal may be of the earlier call's doing (EC2
 * already modifying the volume): the earlier call's time is kept, not cleared with the refusal.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a ModifyVolume refused for certain after an earlier one whose answer was lost', () => {
  it('keeps the time of the earlier, unanswered call', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    const created = await volumeOf(h);
    expect(created.status.state).toBe('available');

    h.ebs.failNext('ModifyVolume', new ProviderError('transient', 'RequestTimeout', 'ModifyVolume timed out'));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...created.spec, sizeGiB: 20 }, generation: created.generation + 1 });
    await h.watch();
    await h.drain();
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    const sentAt = (await volumeOf(h)).modificationSentAt;
    expect(sentAt).toEqual(expect.any(String));

    h.ebs.failNext('ModifyVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'The parameter is not valid'));
    for (let i = 0; i < 200 && h.ebs.calls.ModifyVolume < 2; i++) {
      await h.clock.advance(5_000);
      await h.drain();
    }
    expect(h.ebs.calls.ModifyVolume).toBe(2);
    const refused = await volumeOf(h);
    expect(refused.status).toMatchObject({ code: 'InvalidParameterValue' });
    expect(refused.modificationSentAt).toBe(sentAt);
  });
});
