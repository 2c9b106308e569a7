/** The reconciler's test world: memory backends on a fake clock, EC2 owned by `OWNER` (its volumes made by `owned`), a reconciler and an executor on them, and a pending gp3 volume record. */
import type { VolumeSpec } from '../../lib/domain/records.js';
import type { EngineConfig } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import type { Log, SharedRateBudget, VolumeProvider } from '../../lib/engine/ports.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRecordStore, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

export const OWNER = 'stack-test';
export const MINUTE = 60_000;

export interface ReconcilerWorldOptions {
  /** Records per page of the table scan. */
  pageSize?: number;
  /** The shared rate budget the reconciler (and executor) read; none by default. */
  rateBudget?: SharedRateBudget;
  log?: Log;
  /** The one Availability Zone of the EBS model; us-east-1a by default. */
  availabilityZone?: string;
  /** Instances the EBS model runs, in that zone. */
  instances?: string[];
  /** Engine settings beside the owner tag (the reconciler's and the executor's). */
  config?: Partial<EngineConfig>;
  /** EC2 as the reconciler and executor see it; the EBS model itself by default. */
  provider?: (ebs: MemoryEbs, clock: FakeClock) => VolumeProvider;
}

/** A reconciler, and an executor beside it, on one fake clock, table, queue and EBS model. */
export function reconcilerWorld(options: ReconcilerWorldOptions = {}) {
  const availabilityZone = options.availabilityZone ?? 'us-east-1a';
  const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
  const store = new MemoryRecordStore();
  const queue = new MemoryOperationQueue({ clock });
  const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [availabilityZone] });
  for (const instanceId of options.instances ?? []) ebs.addInstance({ instanceId, availabilityZone });
  const provider = options.provider ? options.provider(ebs, clock) : ebs;
  const metrics = new RecordingMetrics();
  const log = options.log ?? silentLog;
  const config = { ...options.config, ownerTagValue: OWNER };
  const rateBudget = options.rateBudget ? { rateBudget: options.rateBudget } : {};
  const reconciler = new Reconciler({
    store,
    queue,
    provider,
    clock,
    metrics,
    log,
    config,
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
    ...rateBudget,
  });
  const executor = new Executor({ store, queue, provider, clock, metrics, log, config, random: () => 0.5, ...rateBudget });
  /** An EC2 volume in the world's zone made for `record` by this deployment, as CreateVolume tags it (with `tags` beside). */
  const owned = (record: string, spec: Omit<VolumeSpec, 'availabilityZone'> = { sizeGiB: 10, volumeType: 'gp3' }, tags: Record<string, string> = {}) =>
    ebs.createVolume({ clientToken: record, availabilityZone, spec, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: record, ...tags } });
  /** An owned volume for `record` attached outside the system to `instanceId` as /dev/sdf: made, attached 10 s later, and 10 s after that now. */
  const ownedAndAttached = async (record: string, instanceId: string) => {
    const made = await owned(record);
    await clock.advance(10_000);
    await ebs.attachVolume({ ebsVolumeId: made.ebsVolumeId, instanceId, device: '/dev/sdf' });
    await clock.advance(10_000);
    return made;
  };
  return { clock, store, queue, ebs, metrics, reconciler, executor, owned, ownedAndAttached };
}

/** A pending 10 GiB gp3 volume record in us-east-1a, made at `at`. */
export { volume } from './memory-store-fixtures.js';
