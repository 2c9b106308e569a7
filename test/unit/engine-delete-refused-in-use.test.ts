/**
 * A dying volume's DeleteVolume refused as in use with no attachment record left: one look at EC2
 * says where the volume is held, and the status names the instances: those it is attached to, and
 * apart those it is still detaching from. When that look fails, the refusal is the failed attempt
 * as EC2 gave it, and the retry deletes the volume once it is free.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, type ProviderVolume, type VolumeProvider } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { INSTANCE, OTHER_INSTANCE, availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

type Harness = Awaited<ReturnType<typeof availableVolume>>;

function executorOver(h: Harness, overrides: Partial<VolumeProvider>): Executor {
  return new Executor({ store: h.store, queue: h.queue, provider: providerOver(h.ebs, overrides), clock: h.clock, metrics: h.metrics, log: silentLog, random: () => 0.5, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
}

/** data-1 available, then attached in the console to INSTANCE (no record knows it) and deleted by its client. */
async function dyingHeldOutside(): Promise<{ h: Harness; ebsVolumeId: string }> {
  const h = await availableVolume({});
  const { ebsVolumeId } = await volumeOf(h);
  await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
  await h.clock.advance(10_000);
  return { h, ebsVolumeId: ebsVolumeId! };
}

describe('executor: a dying volume whose DeleteVolume EC2 refuses as in use', () => {
  it('attached to one instance and detaching from another: the status names both, apart', async () => {
    const { h } = await dyingHeldOutside();
    const executor = executorOver(h, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v): ProviderVolume => ({ ...v, attachments: [...v.attachments, { instanceId: OTHER_INSTANCE, device: '/dev/sdy', state: 'detaching' }] })),
    });
    await executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.DeleteVolume).toBe(1);
    const { status } = await volumeOf(h);
    expect(status).toMatchObject({ state: 'in-use', code: 'VolumeInUse', attempts: 1 });
    expect(status.message).toMatch(new RegExp(`^waiting: attached outside the system to ${INSTANCE} \\(and detaching from ${OTHER_INSTANCE}\\), no record names the attachment`));
  });

  it('the look at EC2 failing: the refusal is the failed attempt, the state as it was; the retry deletes the volume once detached', async () => {
    const { h, ebsVolumeId } = await dyingHeldOutside();
    const describes = h.ebs.calls.DescribeVolumes;
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'EC2 had an internal error'));
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    const { status } = await volumeOf(h);
    expect(status).toMatchObject({ state: 'available', code: 'VolumeInUse', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(status.message).not.toContain('outside the system');

    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
    await h.settle(300_000, 5_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)).toBeUndefined();
  });
});
