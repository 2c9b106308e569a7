/**
 * The simulation's EBS model (`bench/sim/ebs.ts`): each transition takes a time drawn from its own
 * distribution of the latency model (BENCHMARKS.md, EBS latencies), and the drawn create and
 * attach times are kept per volume.
 */
import { describe, expect, it } from 'vitest';
import { createSimulatedEbs } from '../../bench/sim/ebs.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { DEFAULT_LATENCIES, Lognormal, type LatencyModel } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';

const T0 = Date.UTC(2026, 0, 1);
const fixed = (ms: number) => new Lognormal(ms, ms);
/** Each step its own fixed time, so which distribution a step drew from shows in when it ends. */
const LATENCIES: LatencyModel = {
  ...DEFAULT_LATENCIES,
  createVolume: fixed(1000),
  attach: fixed(2000),
  detach: fixed(3000),
  deleteVolume: fixed(4000),
  modify: fixed(5000),
};

describe("the simulation's EBS model", () => {
  it('takes each step the time of its own distribution and keeps the create and attach times drawn per volume', async () => {
    const loop = new EventLoop(T0);
    const ebs = createSimulatedEbs(loop, new Random(1), LATENCIES, [{ instanceId: 'i-1', availabilityZone: 'us-east-1a', maxAttachments: 20 }]);
    const p = ebs.provider;
    const seen: Array<[string, unknown]> = [];
    const look = async (label: string, ebsVolumeId: string, wait: number) => {
      await loop.clock.sleep(wait);
      const [v] = await p.describeVolumes([ebsVolumeId]);
      seen.push([label, v ? [v.state, ...v.attachments.map((a) => a.state)] : 'gone']);
    };
    const work = (async () => {
      const v = await p.createVolume({ clientToken: 'token-1', availabilityZone: 'us-east-1a', spec: { sizeGiB: 8, volumeType: 'gp3' }, tags: {} });
      const id = v.ebsVolumeId;
      await look('create +900', id, 900);
      await look('create +1100', id, 200);
      await p.attachVolume({ ebsVolumeId: id, instanceId: 'i-1', device: '/dev/xvdb' });
      await look('attach +1900', id, 1900);
      await look('attach +2100', id, 200);
      await p.modifyVolume({ ebsVolumeId: id, sizeGiB: 16 });
      await loop.clock.sleep(9000);
      const [optimizing] = await p.describeVolumeModifications([id]);
      await loop.clock.sleep(2000);
      const [completed] = await p.describeVolumeModifications([id]);
      seen.push(['modify +9000, +11000', [optimizing?.state, completed?.state]]);
      await p.detachVolume({ ebsVolumeId: id, instanceId: 'i-1' });
      await look('detach +2900', id, 2900);
      await look('detach +3100', id, 200);
      await p.deleteVolume(id);
      await look('delete +3900', id, 3900);
      await look('delete +4100', id, 200);
      return id;
    })();
    await loop.run({ done: () => false, untilMs: T0 + 3_600_000 });
    const id = await work;
    expect(seen).toEqual([
      ['create +900', ['creating']],
      ['create +1100', ['available']],
      ['attach +1900', ['in-use', 'attaching']],
      ['attach +2100', ['in-use', 'attached']],
      ['modify +9000, +11000', ['optimizing', 'completed']],
      ['detach +2900', ['in-use', 'detaching']],
      ['detach +3100', ['available']],
      ['delete +3900', ['deleting']],
      ['delete +4100', 'gone'],
    ]);
    expect(ebs.times.get(id)).toEqual({ createMs: 1000, attachMs: 2000 });
    expect(ebs.createdIds()).toEqual([id]);
  });
});
