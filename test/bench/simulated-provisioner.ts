/** The simulated provisioner on its own (no workload driver), with what a polling client would see of it. */
import { ProvisionerDesign } from '../../bench/provisioner.js';
import { createSimulatedEbs } from '../../bench/sim/ebs.js';
import { SimulatedEc2 } from '../../bench/sim/ec2.js';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { DEFAULT_LATENCIES } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { instancesFor, requestsFor } from '../../bench/workload.js';

export function simulatedProvisioner(seed = 1, sharedRateBudget = true, mapping: { shards?: number; duplicateRate?: number } = {}) {
  const loop = new EventLoop();
  const random = new Random(seed);
  const instances = instancesFor(3);
  const ebs = createSimulatedEbs(loop, random.fork(), DEFAULT_LATENCIES, instances);
  const ec2 = new SimulatedEc2(loop, random.fork(), ebs.provider, DEFAULT_LATENCIES.ec2Request);
  const seen = { attached: [] as string[], finished: [] as string[], failed: [] as Array<[string, string]> };
  const design = new ProvisionerDesign({
    loop,
    random: random.fork(),
    ec2,
    latencies: DEFAULT_LATENCIES,
    observer: {
      attached: (id) => seen.attached.push(id),
      finished: (id) => seen.finished.push(id),
      failed: (id, reason) => seen.failed.push([id, reason]),
    },
    shards: mapping.shards ?? 4,
    duplicateRate: mapping.duplicateRate ?? 0,
    sharedRateBudget,
    instances,
  });
  return { loop, design, seen, requests: requestsFor(3, instances) };
}
