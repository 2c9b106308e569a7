/**
 * A modification of the volume under way in EC2 toward another spec (one made in the console, say)
 * is waited for before modifying, with no ModifyVolume: the status names its state and its target
 * as EC2 lists it (all of it, or the one value it lists), and says so when EC2 lists no target.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a spec change while EC2 makes another modification of the volume', () => {
  it('waits for it with no call, naming a modification whose target EC2 does not list', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    const provider = providerOver(h.ebs, {
      describeVolumeModifications: async () => [{ ebsVolumeId: volume.ebsVolumeId!, state: 'optimizing', startedAt: h.clock.now() - 60_000 }],
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    await executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
    expect((await volumeOf(h)).status).toMatchObject({
      state: 'available',
      code: 'IncorrectModificationState',
      message: expect.stringMatching(/^waiting for the modification under way \(optimizing, to an unknown target\) to finish before modifying/),
      nextAttemptAt: expect.any(String),
    });
  });

  it('names the one target value EC2 lists', async () => {
    const h = await availableVolume({});
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    const provider = providerOver(h.ebs, {
      describeVolumeModifications: async () => [{ ebsVolumeId: volume.ebsVolumeId!, state: 'modifying', targetSizeGiB: 15, startedAt: h.clock.now() - 60_000 }],
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    await executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
    expect((await volumeOf(h)).status.message).toMatch(/^waiting for the modification under way \(modifying, to 15 GiB\) to finish before modifying/);
  });
});
