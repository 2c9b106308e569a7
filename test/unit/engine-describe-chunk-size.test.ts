/**
 * The executor describes volumes and instances in calls to the provider of at most
 * `describeChunkSize` ids each, every id once (the EC2 adapter splits each into requests of at most
 * 200 ids: test/unit/describe-chunk-ec2-requests.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, AZ, harness, INSTANCE, newAttachment, newVolume, OTHER_INSTANCE, providerOver, settleAll, volumeKey } from './engine-fixtures.js';

describe('describes of a batch in calls of at most describeChunkSize ids', () => {
  it('splits five volumes into calls of two, two and one, each volume once', async () => {
    const h = harness();
    const names = ['data-1', 'data-2', 'data-3', 'data-4', 'data-5'];
    for (const name of names) await h.store.create(newVolume(name));
    await settleAll(h, 3);
    const calls: string[][] = [];
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) => {
        calls.push([...ids]);
        return h.ebs.describeVolumes(ids);
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { describeChunkSize: { volumes: 2, instances: 1000 } } });
    h.queue.purge();
    await executor.run(h.batchOf(...names.map((name) => h.op('check-volume', volumeKey(name)))));

    expect(calls.map((ids) => ids.length)).toEqual([2, 2, 1]);
    const ebsVolumeIds = await Promise.all(names.map(async (name) => ((await h.store.get(volumeKey(name))) as { ebsVolumeId: string }).ebsVolumeId));
    expect(calls.flat().sort()).toEqual([...ebsVolumeIds].sort());
  });

  it('splits three instances into calls of two and one, each instance once', async () => {
    const h = harness();
    const third = 'i-0aaaaaaaaaaaaaaaa';
    h.ebs.addInstance({ instanceId: third, availabilityZone: AZ });
    const instances = [INSTANCE, OTHER_INSTANCE, third];
    const names = ['data-1', 'data-2', 'data-3'];
    for (const name of names) await h.store.create(newVolume(name));
    await settleAll(h, 3);
    const calls: string[][] = [];
    const provider = providerOver(h.ebs, {
      describeInstances: async (ids) => {
        calls.push([...ids]);
        return h.ebs.describeInstances(ids);
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { describeChunkSize: { volumes: 500, instances: 2 } } });
    for (const [i, instanceId] of instances.entries()) await h.store.create(newAttachment(names[i]!, { instanceId }));
    await h.watch();
    h.queue.purge();
    await executor.run(h.batchOf(...instances.map((instanceId, i) => h.op('attach', attachmentKey(names[i]!, instanceId)))));

    expect(calls.map((ids) => ids.length)).toEqual([2, 1]);
    expect(calls.flat().sort()).toEqual([...instances].sort());
  });
});
