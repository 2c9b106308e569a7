/**
 * A dying volume being modified, its attachment still detaching, whose look at the modification
 * fails for good (DescribeVolumes refused): the dying volume is in error and waits for its
 * attachment, and its next attempt comes back after the longest backoff as a check of the volume,
 * as a dying record given up on is taken up again (`dyingTerminal`).
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { INSTANCE, attachmentKey, dyingWhileModifyingAndDetaching, volumeKey, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;

describe('executor: a dying volume that waits for its attachment and whose look is refused for good', () => {
  it('is in error, waits for its attachment, and comes back as a check of the volume after the longest backoff', async () => {
    const { h, ebsVolumeId } = await dyingWhileModifyingAndDetaching();

    // The modification's next check is refused for good.
    h.ebs.failNext('DescribeVolumes', new ProviderError('unauthorized', 'UnauthorizedOperation', 'not allowed to describe volumes'), 1000);
    await h.settle(5 * MINUTE, 10_000);
    await h.watch();
    h.ebs.clearFaults();
    const failed = await volumeOf(h);
    expect(failed.status).toMatchObject({ state: 'error', code: 'UnauthorizedOperation', nextAttemptAt: expect.any(String) });
    const retryInSeconds = Math.round((Date.parse(failed.status.nextAttemptAt!) - h.clock.now()) / 1000);
    expect(retryInSeconds).toBeGreaterThan(0);
    expect(retryInSeconds).toBeLessThanOrEqual(DEFAULT_ENGINE_CONFIG.backoff.capSeconds);
    expect(h.queued().filter((q) => q.key === 'data-1')).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: Math.min(900, retryInSeconds) }]);

    // The volume let go on the instance: the detach ends, the attachment goes, the volume is deleted.
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, force: true });
    for (let i = 0; i < 6; i++) {
      await h.watch();
      await h.settle(5 * MINUTE, 10_000);
    }
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });
});
