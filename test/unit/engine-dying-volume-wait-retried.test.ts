/**
 * A dying volume being modified, its attachment still detaching, whose look at the modification
 * fails for good (DescribeVolumes refused): the dying volume is in error and waits for its
 * attachment, and its next attempt comes back after the longest backoff as a check of the volume,
 * as a dying record given up on is taken up again (`dyingTerminal`).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;

describe('executor: a dying volume that waits for its attachment and whose look is refused for good', () => {
  it('is in error, waits for its attachment, and comes back as a check of the volume after the longest backoff', async () => {
    const h = harness({ ebsTimings: { modify: 60 * MINUTE, optimize: 60 * MINUTE } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 4; i++) {
      await h.watch();
      await h.settle(30_000);
    }
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).toMatchObject({ status: { state: 'attached' } });
    const volume = await volumeOf(h);
    const ebsVolumeId = volume.ebsVolumeId!;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, iops: 4000 }, generation: volume.generation + 1 });
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    expect((await volumeOf(h)).status.state).toBe('modifying');

    // The volume is busy on its instance: a plain detach does not end. Its client deletes it.
    h.ebs.keepBusy(ebsVolumeId, INSTANCE);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).toMatchObject({ life: 'dying', status: { state: 'detaching' } });
    expect((await volumeOf(h)).status.state).toBe('modifying');

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
