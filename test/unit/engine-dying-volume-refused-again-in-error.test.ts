/**
 * A dying volume whose DeleteVolume EC2 refuses for good is in error and tried again after the
 * longest backoff (`dyingTerminal`); refused for good again, it stays in error, one more attempt
 * counted and its next attempt again after the longest backoff.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const CAP_MS = DEFAULT_ENGINE_CONFIG.backoff.capSeconds * 1000;

describe('a dying volume in error whose delete is refused for good again', () => {
  it('stays in error, counts the attempt and is tried again after the longest backoff', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect((await volumeOf(h)).status.state).toBe('available');
    h.ebs.failNext('DeleteVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'refused'), 2);
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    const first = await volumeOf(h);
    expect(first.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', nextAttemptAt: expect.any(String) });
    expect(Date.parse(first.status.nextAttemptAt!) - Date.parse(first.status.updatedAt)).toBe(CAP_MS);

    await h.settle(CAP_MS + 10_000, 10_000);
    await h.watch();
    const again = await volumeOf(h);
    expect(h.ebs.calls.DeleteVolume).toBe(2);
    expect(again.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', attempts: first.status.attempts + 1 });
    expect(Date.parse(again.status.nextAttemptAt!) - Date.parse(again.status.updatedAt)).toBe(CAP_MS);
  });
});
