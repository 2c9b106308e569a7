/**
 * The executor's looks at EC2 for a batch: DescribeVolumes and DescribeVolumesModifications in
 * chunks of the API maximum, the instances (from this environment's cache, a description another
 * environment left on an attachment record, else DescribeInstances), and the owned volumes of a
 * removed volume record found by their tags. A failed describe is one classified error for all
 * that depend on it.
 */
import type { AttachmentRecord, InstanceSeen } from '../../domain/records.js';
import { validAttachments } from '../../domain/validation.js';
import { classifyError, errorMessage, type ClassifiedError } from '../errors.js';
import type { ProviderInstance, ProviderVolume } from '../ports.js';
import { CLOCK_SKEW_MS } from '../rejection.js';
import type { ExecutorContext } from './context.js';
import type { Item } from './item.js';

function chunk<T>(values: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < values.length; i += size) out.push(values.slice(i, i + size));
  return out;
}

/** An instance as the executor uses it: devices in use completed from the records, and where the description came from. */
export type InstanceView = ProviderInstance & {
  /** Taken from another environment's description on an attachment record, not from EC2 by this one. */
  shared: boolean;
  /** Volume ids of the live attachments to it waiting for a device name, in order (`DeviceRequest.rank`); unknown without its records. */
  awaitingDevice?: string[];
  /** The description to leave on the attachment record this attach writes. */
  seen?: InstanceSeen;
  /** Device names the live attachments to it asked for (`requestedDevice`), held or not yet: none is handed out to another. */
  askedFor?: string[];
};

/** The device names the live attachments of one instance asked for (`requestedDevice`). */
function askedFor(records: readonly AttachmentRecord[]): string[] {
  return records.flatMap((a) => (a.life === 'alive' && a.requestedDevice !== undefined ? [a.requestedDevice] : []));
}

/**
 * The live attachments of one instance that wait for the executor to name their device, as every
 * environment reading the instance's records sees them: their volume ids, sorted.
 */
function awaitingDevice(records: readonly AttachmentRecord[]): string[] {
  return records
    .filter((a) => a.life === 'alive' && a.status.state === 'pending' && a.device === undefined && a.requestedDevice === undefined)
    .map((a) => a.volumeId)
    .sort();
}

/** An attachment whose attach failed and waits for its retry. */
function attachRefused(attachment: AttachmentRecord): boolean {
  return attachment.life === 'alive' && attachment.status.state === 'pending' && attachment.status.attempts > 0;
}

/**
 * The most recent description of an instance left on its attachment records, if still fresh. One
 * dated ahead of now by more than clocks differ (`CLOCK_SKEW_MS`; written into the table by hand, say) is none the system made: taken, it would
 * stay the freshest, and be passed on, for as long as its date says.
 */
function freshestSeen(attachments: readonly AttachmentRecord[], now: number, ttlMs: number): InstanceSeen | undefined {
  let freshest: InstanceSeen | undefined;
  for (const { instanceSeen } of attachments) {
    if (!instanceSeen) continue;
    const age = now - instanceSeen.describedAt;
    if (age < ttlMs && age >= -CLOCK_SKEW_MS && (!freshest || instanceSeen.describedAt > freshest.describedAt)) freshest = instanceSeen;
  }
  return freshest;
}

/**
 * The owned EC2 volumes tagged with each item's volume id (`Item.orphans`): one search per
 * volume id. A failed search is one classified error for the items of that id.
 */
export async function findOrphans(ctx: ExecutorContext, items: Item[]): Promise<void> {
  const byVolumeId = new Map<string, Item[]>();
  for (const item of items) byVolumeId.set(item.key.volumeId, [...(byVolumeId.get(item.key.volumeId) ?? []), item]);
  await Promise.all(
    [...byVolumeId].map(async ([volumeId, group]) => {
      let found: ProviderVolume[] | ClassifiedError;
      try {
        found = await ctx.deps.provider.findOwnedVolumes(volumeId);
      } catch (error) {
        found = classifyError('Describe', error);
        ctx.deps.log.warn('search for volumes by their tags failed', { volumeId, code: found.code, error: found.message });
      }
      for (const item of group) item.orphans = found;
    }),
  );
}

/** Describe in chunks of the API maximum; a failure is one classified error for all dependants. */
export async function describe<T>(
  ctx: ExecutorContext,
  ids: string[],
  size: number,
  call: (ids: string[]) => Promise<T[]>,
  idOf: (value: T) => string,
): Promise<Map<string, T> | ClassifiedError> {
  const found = new Map<string, T>();
  if (ids.length === 0) return found;
  try {
    for (const part of chunk(ids, size)) for (const value of await call(part)) found.set(idOf(value), value);
    return found;
  } catch (error) {
    const classified = classifyError('Describe', error);
    ctx.deps.log.warn('describe failed', { code: classified.code, error: classified.message });
    return classified;
  }
}

/**
 * The instances, described within `instanceCacheTtlMs`: from this environment's cache (what it
 * described itself), else from the freshest description an attachment record of the instance
 * carries (taken for this batch only, never into the cache), else in one
 * DescribeInstances call for the rest (all of them afresh for an instance one of whose attaches was
 * refused and waits for its retry: it may have been refused on the description held). Device names in use are completed with the devices the
 * instance's attachment records hold (written before every AttachVolume, by any environment), so
 * allocation does not hand out a name another attach has taken meanwhile. Without those records
 * every instance is described from EC2, and that description is not kept for later batches.
 */
export async function describeInstances(ctx: ExecutorContext, ids: string[], now: number, describeAfresh: ReadonlySet<string>): Promise<Map<string, InstanceView> | ClassifiedError> {
  let attachments: Map<string, AttachmentRecord[]> | undefined;
  /** Device names the instance's records hold, those that do not parse included (a name in one is not handed out). */
  const heldBy = new Map<string, Set<string>>();
  try {
    const read = await Promise.all(ids.map(async (id) => [id, await ctx.deps.store.attachmentsOfInstance(id)] as const));
    for (const [id, raws] of read) heldBy.set(id, new Set(raws.flatMap((a) => (typeof a.device === 'string' && a.device ? [a.device] : []))));
    // Records are input: one written straight into the table that does not parse is left out (it fails no attach of the instance's others).
    attachments = new Map(read.map(([id, raws]) => [id, validAttachments(raws)]));
  } catch (error) {
    ctx.deps.log.warn('reading attachments of instances failed; describing them from EC2', { error: errorMessage(error) });
  }
  const known = new Map<string, { instance: ProviderInstance; describedAt: number; shared: boolean }>();
  const missing: string[] = [];
  for (const id of ids) {
    // An attach of the instance refused and waiting for its retry may have been refused on the description
    // held here (the cache's, or the one it wrote on its record): the instance's other attaches do not reuse it either.
    const reusable = attachments !== undefined && !describeAfresh.has(id) && !(attachments.get(id) ?? []).some(attachRefused);
    const cached = reusable ? ctx.instanceCache.get(id) : undefined;
    if (cached && now - cached.describedAt < ctx.config.instanceCacheTtlMs) {
      known.set(id, { ...cached, shared: false });
      continue;
    }
    const seen = reusable ? freshestSeen(attachments!.get(id) ?? [], now, ctx.config.instanceCacheTtlMs) : undefined;
    if (seen) {
      // Not kept in the cache, which holds what this environment described: a later batch takes it
      // from the records again while one still carries it, and judges it as another's (`shared`).
      const instance: ProviderInstance = { instanceId: id, availabilityZone: seen.availabilityZone, state: seen.state, deviceNames: seen.otherDevices };
      known.set(id, { instance, describedAt: seen.describedAt, shared: true });
      continue;
    }
    missing.push(id);
  }
  const described = await describe(ctx, missing, ctx.config.describeChunkSize.instances, (part) => ctx.deps.provider.describeInstances(part), (i) => i.instanceId);
  if (!(described instanceof Map)) return described;
  for (const [id, instance] of described) {
    // Kept without the names the records hold: those come from the records each time, so a name
    // an attachment let go of (detached, its record removed) is not held on here for the TTL,
    // where other environments' views no longer have it and the ranks would name differently.
    // Records that could not be read tell no such names apart: that description is not kept.
    const held = heldBy.get(id);
    if (attachments !== undefined && held) {
      ctx.instanceCache.set(id, { instance: { ...instance, deviceNames: instance.deviceNames.filter((device) => !held.has(device)) }, describedAt: now });
    }
    known.set(id, { instance, describedAt: now, shared: false });
  }
  const views = new Map<string, InstanceView>();
  for (const [id, { instance, describedAt, shared }] of known) {
    const records = attachments?.get(id);
    const held = heldBy.get(id) ?? new Set<string>();
    const view: InstanceView = { ...instance, deviceNames: [...new Set([...instance.deviceNames, ...held])], shared };
    if (records) {
      view.awaitingDevice = awaitingDevice(records);
      view.askedFor = askedFor(records);
    }
    if (instance.state === 'running' || instance.state === 'stopped') {
      const otherDevices = instance.deviceNames.filter((device) => !held.has(device));
      view.seen = { availabilityZone: instance.availabilityZone, state: instance.state, otherDevices, describedAt };
    }
    views.set(id, view);
  }
  return views;
}
