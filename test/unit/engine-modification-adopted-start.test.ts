/**
 * A modification toward the spec that EC2 already makes (a ModifyVolume whose answer was lost) is
 * followed as the record's own, with no call, from when EC2 started it; a start EC2's clock dates
 * a little ahead of ours is taken as now, never as a time still to come.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

async function adoptedWithStart(offsetMs: number, sentAgoMs?: number): Promise<{ volume: VolumeRecord; now: number }> {
  const h = await availableVolume({});
  const volume = await volumeOf(h);
  const now = h.clock.now();
  await h.store.update<VolumeRecord>(volumeKey('data-1'), {
    spec: { ...volume.spec, sizeGiB: 20 },
    generation: 2,
    ...(sentAgoMs === undefined ? {} : { modificationSentAt: new Date(now - sentAgoMs).toISOString() }),
  });
  const provider = providerOver(h.ebs, {
    describeVolumeModifications: async () => [{ ebsVolumeId: volume.ebsVolumeId!, state: 'modifying', targetSizeGiB: 20, targetVolumeType: 'gp3', startedAt: now + offsetMs }],
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
  await executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
  expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
  return { volume: await volumeOf(h), now };
}

describe('a modification toward the spec EC2 already makes', () => {
  it('is followed from when EC2 started it', async () => {
    const { volume, now } = await adoptedWithStart(-30_000);
    expect(volume.status).toMatchObject({ state: 'modifying', message: 'modifying (EC2 had already accepted this change)', operationStartedAt: new Date(now - 30_000).toISOString() });
  });

  it('is the ModifyVolume whose answer was lost: the record no longer waits for that answer', async () => {
    const { volume } = await adoptedWithStart(-5_000, 10_000);
    expect(volume.status.state).toBe('modifying');
    expect(volume.modificationSentAt).toBeUndefined();
  });

  it('dated ahead of our clock, is followed from now', async () => {
    const { volume, now } = await adoptedWithStart(3_000);
    expect(volume.status).toMatchObject({ state: 'modifying', operationStartedAt: new Date(now).toISOString() });
  });
});
