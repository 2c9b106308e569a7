/**
 * `OperationLatency` of a DeleteVolume is the call's time in milliseconds, from its start to EC2's
 * answer: for a call that goes through, for one EC2 fails, and for one EC2 refuses because the
 * volume is attached outside the system (the look at EC2 that follows is not the call's time).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { INSTANCE, availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

async function deleteTaking(ms: number, answer: 'deleted' | 'failed' | 'attached-outside') {
  const h = await availableVolume({});
  const { ebsVolumeId } = await volumeOf(h);
  if (answer === 'attached-outside') await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
  await h.clock.advance(10_000);
  const provider = providerOver(h.ebs, {
    deleteVolume: async (id) => {
      await h.clock.sleep(ms);
      if (answer === 'failed') throw new ProviderError('transient', 'InternalError', 'An internal error has occurred.');
      return h.ebs.deleteVolume(id);
    },
    describeVolumes: async (ids) => {
      // The look after a refusal takes time of its own, which is not the DeleteVolume's.
      await h.clock.sleep(5_000);
      return h.ebs.describeVolumes(ids);
    },
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
  const deletes = h.metrics.operations.filter((event) => event.operation === 'delete-volume').length;
  const run = executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
  await h.clock.advance(60_000);
  await run;
  return { events: h.metrics.operations.filter((event) => event.operation === 'delete-volume').slice(deletes), status: ((await h.store.get(volumeKey('data-1'))) as VolumeRecord | undefined)?.status };
}

describe('the latency of a DeleteVolume', () => {
  it('is the time EC2 took to accept it (the volume then deleting)', async () => {
    const { events, status } = await deleteTaking(300, 'deleted');
    expect(status?.state).toBe('deleting');
    expect(events.map((event) => event.latencyMs)).toEqual([300]);
  });

  it('is the time EC2 took to fail it', async () => {
    const { events, status } = await deleteTaking(450, 'failed');
    expect(status?.code).toBe('InternalError');
    expect(events.map((event) => event.latencyMs)).toEqual([450]);
  });

  it('is the time EC2 took to refuse it as in use, not counting the look at where the volume is attached', async () => {
    const { events, status } = await deleteTaking(700, 'attached-outside');
    expect(status).toMatchObject({ state: 'in-use', code: 'VolumeInUse' });
    expect(status?.message).toContain('attached outside the system');
    expect(events.map((event) => event.latencyMs)).toEqual([700]);
  });
});
