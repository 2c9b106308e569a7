/**
 * Modifications EC2 accepts and then fails are counted per target (size, type, IOPS, throughput):
 * a client asking for another throughput or IOPS starts a new count, from one, rather than spending
 * the budget of the one EC2 kept failing. A failure EC2 gives no reason for says so in the status.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { data1Created, harness, providerOver, runFor, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

type Harness = ReturnType<typeof harness>;

/** data-1 (gp3) made; every modification of it then failed by EC2 once accepted, with `message`. */
async function failingModifications(h: Harness, message: string): Promise<void> {
  await data1Created(h, 10_000);
  const modify = h.ebs.modifyVolume.bind(h.ebs);
  h.ebs.modifyVolume = async (request) => {
    await modify(request);
    h.ebs.failModification(request.ebsVolumeId, message);
  };
}

/** Asks for `value` of a performance `field` and runs until EC2 has failed a modification to it. */
async function askUntilFailed(h: Harness, field: 'iops' | 'throughput', value: number, generation: number): Promise<VolumeRecord> {
  const { spec } = await volumeOf(h);
  await h.store.update<VolumeRecord>(KEY, { spec: { ...spec, [field]: value }, generation });
  for (let i = 0; i < 60 && (await volumeOf(h)).failedModifications?.target[field] !== value; i++) await runFor(h, 5, 5000);
  return volumeOf(h);
}

describe('modifications EC2 fails, counted per target', () => {
  it('another throughput asked for is a new target: its failures are counted from one', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await failingModifications(h, 'The volume could not be modified.');

    const first = await askUntilFailed(h, 'throughput', 250, 2);
    expect(first.failedModifications).toEqual({ target: { sizeGiB: 10, volumeType: 'gp3', throughput: 250 }, count: 1 });
    expect(first.status).toMatchObject({ code: 'ModificationFailed', message: 'The volume could not be modified.' });

    const second = await askUntilFailed(h, 'throughput', 300, 3);
    expect(second.failedModifications).toEqual({ target: { sizeGiB: 10, volumeType: 'gp3', throughput: 300 }, count: 1 });
  });

  it('the target counted is the IOPS asked for; another IOPS is counted from one', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await failingModifications(h, 'The volume could not be modified.');

    const first = await askUntilFailed(h, 'iops', 4000, 2);
    expect(first.failedModifications).toEqual({ target: { sizeGiB: 10, volumeType: 'gp3', iops: 4000 }, count: 1 });
    expect(first.status).toMatchObject({ code: 'ModificationFailed', attempts: 1 });

    const second = await askUntilFailed(h, 'iops', 5000, 3);
    expect(second.failedModifications).toEqual({ target: { sizeGiB: 10, volumeType: 'gp3', iops: 5000 }, count: 1 });
    expect(second.status).toMatchObject({ code: 'ModificationFailed', attempts: 1 });
  });

  it('a failure EC2 gives no reason for is reported as a failed modification all the same', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await failingModifications(h, 'The volume could not be modified.');
    // EC2 lists the failed modification without a status message.
    const provider = providerOver(h.ebs, {
      describeVolumeModifications: async (ids) => (await h.ebs.describeVolumeModifications(ids)).map(({ statusMessage: _reason, ...modification }) => modification),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
    const { spec } = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...spec, sizeGiB: 20 }, generation: 2 });
    for (let i = 0; i < 60 && (await volumeOf(h)).failedModifications === undefined; i++) {
      await h.watch();
      const received = h.queue.receive(100);
      if (received.length > 0) await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
      for (const r of received) h.queue.delete(r.receiptHandle);
      await h.clock.advance(5000);
    }
    const volume = await volumeOf(h);
    expect(volume.failedModifications).toEqual({ target: { sizeGiB: 20, volumeType: 'gp3' }, count: 1 });
    expect(volume.status).toMatchObject({ code: 'ModificationFailed', message: 'EC2 reports the modification failed', attempts: 1 });
  });
});
