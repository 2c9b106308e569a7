/**
 * The EBS model of the simulation: the engine's in-memory EBS (`MemoryEbs`), with each transition
 * time drawn from the latency model, and the drawn times kept per volume so the report can take
 * EBS's own time out of the latency a client sees.
 */
import type { CreateVolumeRequest, ProviderVolume, VolumeProvider } from '../../lib/engine/ports.js';
import { MemoryEbs, type TimedStep } from '../../lib/memory/index.js';
import type { EventLoop } from './event-loop.js';
import type { LatencyModel } from './latency.js';
import type { Random } from './random.js';
import type { InstanceSpec } from '../workload.js';

/** The EBS durations drawn for one volume. */
export interface EbsTimes {
  createMs?: number;
  attachMs?: number;
}

export interface SimulatedEbs {
  /** The EBS model, as a provider (no API round trip, no throttling: the EC2 layer adds those). */
  provider: VolumeProvider;
  model: MemoryEbs;
  times: Map<string, EbsTimes>;
  /** Every EBS volume id created so far. */
  createdIds(): string[];
}

export const SIMULATION_OWNER_TAG = 'ebs-provisioner';

/** The EBS model over `instances`, its transition times drawn from `latencies` on the loop's clock and kept per volume. */
export function createSimulatedEbs(loop: EventLoop, random: Random, latencies: LatencyModel, instances: InstanceSpec[]): SimulatedEbs {
  const lastDraw: Partial<Record<TimedStep, number>> = {};
  const draw = (step: TimedStep): number => {
    const distribution = {
      create: latencies.createVolume,
      attach: latencies.attach,
      detach: latencies.detach,
      delete: latencies.deleteVolume,
      modify: latencies.modify,
      optimize: latencies.modify,
    }[step];
    const ms = distribution.sample(random);
    lastDraw[step] = ms;
    return ms;
  };
  const model = new MemoryEbs({
    clock: loop.clock,
    ownerTagValue: SIMULATION_OWNER_TAG,
    timings: { create: draw, attach: draw, detach: draw, delete: draw, modify: draw, optimize: draw },
  });
  for (const instance of instances) model.addInstance(instance);
  const times = new Map<string, EbsTimes>();
  const created: string[] = [];
  // MemoryEbs draws a duration synchronously inside the call, so the draw read right after the
  // call (before any other code runs) is this call's.
  const provider: VolumeProvider = {
    createVolume: async (request: CreateVolumeRequest): Promise<ProviderVolume> => {
      delete lastDraw.create;
      const pending = model.createVolume(request);
      const createMs = lastDraw.create;
      const volume = await pending;
      if (createMs !== undefined && !times.has(volume.ebsVolumeId)) {
        times.set(volume.ebsVolumeId, { createMs });
        created.push(volume.ebsVolumeId);
      }
      return volume;
    },
    attachVolume: async (request) => {
      delete lastDraw.attach;
      const pending = model.attachVolume(request);
      const attachMs = lastDraw.attach;
      await pending;
      const entry = times.get(request.ebsVolumeId);
      if (entry && attachMs !== undefined) entry.attachMs = attachMs;
    },
    describeVolumes: (ids) => model.describeVolumes(ids),
    describeVolumeModifications: (ids) => model.describeVolumeModifications(ids),
    describeInstances: (ids) => model.describeInstances(ids),
    detachVolume: (request) => model.detachVolume(request),
    deleteVolume: (id) => model.deleteVolume(id),
    modifyVolume: (request) => model.modifyVolume(request),
    createTags: (id, tags) => model.createTags(id, tags),
    deleteTags: (id, keys) => model.deleteTags(id, keys),
    listOwnedVolumes: (options) => model.listOwnedVolumes(options),
    findOwnedVolumes: (recordVolumeId) => model.findOwnedVolumes(recordVolumeId),
  };
  return { provider, model, times, createdIds: () => [...created] };
}
