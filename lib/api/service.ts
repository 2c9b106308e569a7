/**
 * What the HTTP API does, as plain TypeScript over the record store: no HTTP, no AWS. Requests
 * arrive here already shaped by the request schemas, and every record read from the table goes
 * through the domain's record parser (`stored-records.ts`: one that is not valid is shown as such,
 * and never acted on); this layer enforces what needs the current
 * records (existence, life, changes EBS can make, conflicts) and writes only client-owned fields
 * (spec, life, generation, requestedDevice, forceDetach), always conditionally; of the status, only
 * what the request itself makes untrue (a retry's error, the refusal of a spec it replaces). A write given a `Precondition`
 * (If-Match) is refused with 412 unless the record is at a generation it names, and its write is
 * conditional on that generation, so a change landing between the read and the write is refused too.
 */
import { randomBytes } from 'node:crypto';
import type { AttachmentRecord, ProvisionerRecord, RecordKey, VolumeRecord, VolumeSpec } from '../domain/records.js';
import { canonicalJson } from '../domain/canonical-json.js';
import { shortenMessage } from '../domain/status-message.js';
import { MULTI_ATTACH_MAX_INSTANCES, provisionedPerformance } from '../domain/ebs-limits.js';
import { describeValidationIssues, IMMUTABLE_FIELDS, isPlaced, sameSpecValue, specChangeIssues, validateVolumeSpec, type ValidationIssue } from '../domain/validation.js';
import { DEFAULT_ENGINE_CONFIG, RATE_BUCKET_OF, type MutatingAction, type RateBucket, type RateBudget } from '../engine/config.js';
import { deviceSlot } from '../engine/devices.js';
import { errorMessage } from '../engine/errors.js';
import { firstActionOf, planAttachment, planVolume, volumeRecordLost } from '../engine/planner.js';
import { retryRequested, SPEC_REJECTED_CODE, withoutSpecRejection } from '../engine/status.js';
import { ConditionFailedError, InvalidCursorError, type Clock, type Log, type RecordChanges, type RecordStore, type SharedRateBudget } from '../engine/ports.js';
import { silentLog } from '../memory/log.js';
import { requirePrecondition, type Precondition } from './preconditions.js';
import { ApiProblem, invalid, type FieldIssue } from './problem.js';
import {
  generationRead,
  versionRead,
  invalidAttachmentView,
  invalidRecordProblem,
  invalidVolumeView,
  readRecord,
  validOnceDying,
  validOrThrow,
  type Read,
  type Valid,
} from './stored-records.js';
import type {
  AttachmentListItem,
  AttachmentView,
  CreateVolumeRequest,
  ListVolumesQuery,
  PatchVolumeRequest,
  PutAttachmentRequest,
  RateWait,
  VolumeDetails,
  VolumeList,
  VolumeListItem,
  VolumeView,
} from './schemas.js';

export interface VolumeServiceDeps {
  store: RecordStore;
  clock: Clock;
  /** Id for a volume created without one; must satisfy the volume id schema. */
  newVolumeId?: () => string;
  /**
   * The executors' shared EC2 rate budget, read (never taken from) to tell how long a record's
   * next EC2 call waits in line (`rateWait`); without it no view says so.
   */
  rateBudget?: SharedRateBudget;
  /** EC2's buckets as the executors spend them (default: the engine's defaults). */
  accountRateBudgets?: Record<RateBucket, RateBudget>;
  log?: Log;
}

/** Outcome of a request that may or may not have created something (201 vs 200). */
export interface Created<T> {
  created: boolean;
  value: T;
}

/** Store reads one listing request may make before it returns a short page with a cursor. */
export const MAX_STORE_READS_PER_PAGE = 10;
/** Conditional writes retried after a concurrent client change before answering 409. */
const WRITE_ATTEMPTS = 3;

export function generateVolumeId(): string {
  return `v-${randomBytes(8).toString('hex')}`;
}

const volumeKey = (volumeId: string): RecordKey => ({ kind: 'volume', volumeId });
const attachmentKey = (volumeId: string, instanceId: string): RecordKey => ({ kind: 'attachment', volumeId, instanceId });

/**
 * A new attachment record of `volume` (as just read) to `instanceId`. When the volume cannot take
 * it yet, its status starts with the reason the watcher would write (see `planAttachment`), so the
 * watcher finds nothing to write for it.
 *
 * @example
 * newAttachmentRecord(pendingVolume, 'i-0123456789abcdef0', now).status.message;
 * // 'waiting for volume data-01 to become available'
 */
export function newAttachmentRecord(volume: VolumeRecord, instanceId: string, now: string, requestedDevice?: string): AttachmentRecord {
  const record: AttachmentRecord = {
    kind: 'attachment',
    volumeId: volume.volumeId,
    instanceId,
    life: 'alive',
    ...(requestedDevice !== undefined ? { requestedDevice } : {}),
    generation: 1,
    status: { state: 'pending', attempts: 0, updatedAt: now },
    version: 1,
    createdAt: now,
  };
  const decision = planAttachment(record, volume);
  if (decision.type === 'wait') record.status.message = decision.reason;
  return record;
}

export class VolumeService {
  private readonly store: RecordStore;
  private readonly clock: Clock;
  private readonly newVolumeId: () => string;
  private readonly rateBudget: SharedRateBudget | undefined;
  private readonly accountRateBudgets: Record<RateBucket, RateBudget>;
  private readonly log: Log;

  constructor(deps: VolumeServiceDeps) {
    this.store = deps.store;
    this.clock = deps.clock;
    this.newVolumeId = deps.newVolumeId ?? generateVolumeId;
    this.rateBudget = deps.rateBudget;
    this.accountRateBudgets = deps.accountRateBudgets ?? DEFAULT_ENGINE_CONFIG.accountRateBudgets;
    this.log = deps.log ?? silentLog;
  }

  /**
   * Creates a volume record (and its attachment when `attachTo` is given). Repeating the request
   * with the same volume id and spec answers with the existing volume; a different spec (or
   * placement taken from another `attachTo` instance) is 409 naming each difference.
   */
  async createVolume(request: CreateVolumeRequest): Promise<Created<VolumeDetails>> {
    const spec = placedSpec(request);
    if (!isPlaced(spec)) {
      const issues = [{ path: 'spec.availabilityZone', message: UNPLACED }];
      throw invalid(`the volume has no placement: ${describeValidationIssues(issues)}`, issues);
    }
    const volumeId = request.volumeId ?? this.newVolumeId();
    const now = this.isoNow();
    const record: VolumeRecord = {
      kind: 'volume',
      volumeId,
      spec,
      life: 'alive',
      generation: 1,
      status: { state: 'pending', attempts: 0, updatedAt: now },
      version: 1,
      createdAt: now,
    };

    if (request.attachTo && !(await this.store.get(volumeKey(volumeId)))) {
      // A new volume's attachment is judged before anything is written, so a create refused for it
      // writes nothing. (A conflicting request made between this check and the attachment's write
      // is still refused after the volume record is written.)
      const { instanceId, device } = request.attachTo;
      await this.attachableAs(record, await this.readAttachmentsOf(volumeId), instanceId, { device }, (name) => `attachTo.${name}`);
    }
    if (request.volumeId !== undefined) return this.createAndAttach(record, request);
    const written = { volume: false };
    try {
      return await this.createAndAttach(record, request, written);
    } catch (error) {
      if (error instanceof ApiProblem) {
        if (!written.volume) throw error;
        // Refused after the volume was written (an attachment refused by a request landing meanwhile): the answer names it, or it would be lost to the client.
        throw new ApiProblem(error.kind, `${error.detail}; volume ${volumeId} (an id generated for this request) was created all the same: attach it with PUT, or delete it`, error.errors, error.headers);
      }
      // Its id was generated for this request: repeated, the request would ask for another volume beside one that may exist now.
      this.log.error('request failed once a volume was asked for under a generated id', {
        volumeId,
        error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
      });
      throw new ApiProblem(
        'internal',
        `the request failed unexpectedly once volume ${volumeId} (an id generated for this request) was asked for, so it may exist: ` +
          `read it (GET /volumes/${volumeId}) rather than repeating the request, which would ask for another volume`,
      );
    }
  }

  /** Writes `record` unless its id is taken (a repeated request), then the attachment `attachTo` asks for; `written` tells whether the volume was written. */
  private async createAndAttach(record: VolumeRecord, request: CreateVolumeRequest, written = { volume: false }): Promise<Created<VolumeDetails>> {
    const { volumeId, spec } = record;
    let created = true;
    try {
      await this.store.create(record);
      written.volume = true;
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      // An id generated for this request names no volume the client asked for before: the one under it is another's.
      if (request.volumeId === undefined) throw new ApiProblem('conflict', `the id ${volumeId} generated for this request is taken by another volume; nothing was written: repeat the request`);
      const existing = await this.existingVolume(error, volumeId);
      if (existing.life === 'dying') {
        throw new ApiProblem('conflict', `volume ${volumeId} exists and is being deleted`, [
          { path: 'volumeId', message: 'is being deleted; choose another id or wait until it is gone' },
        ]);
      }
      const differences = createDifferences(existing.spec, spec, request);
      if (differences.length > 0) {
        throw new ApiProblem('conflict', `volume ${volumeId} already exists and differs from this request: ${describeValidationIssues(differences)}`, differences);
      }
      created = false;
    }

    if (request.attachTo) {
      // Created or not, the answer is the volume's: 201 names a new volume, 200 the one that was there (its attachment may be new).
      const { instanceId, device } = request.attachTo;
      await this.putAttachment(volumeId, instanceId, { device }, { bodyPath: 'attachTo' });
    }
    return { created, value: await this.details(volumeId) };
  }

  /** A page of volumes, optionally only those in `state` or attached to `instanceId`. */
  async listVolumes(query: ListVolumesQuery): Promise<VolumeList> {
    const filter = filterKey(query);
    const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor, filter, query.instanceId !== undefined ? 'instance' : 'scan');
    const matches = (volume: VolumeListItem) => query.state === undefined || volume.status.state === query.state;
    const listed = (raw: ProvisionerRecord): VolumeListItem => {
      const read = readRecord(raw, 'volume');
      return read.ok ? volumeView(read.record) : invalidVolumeView(read, this.clock.now());
    };

    if (query.instanceId !== undefined) {
      // An instance has few attachments: read them all and page through their volume ids, in order.
      // The cursor names the last id returned, so attachments added or removed before it between
      // pages neither repeat a volume nor skip one (a cursor of an earlier version holds an offset).
      const attachments = await this.store.attachmentsOfInstance(query.instanceId);
      const volumeIds = [...new Set(attachments.map((a) => a.volumeId))].sort();
      const after = cursor?.after;
      const rest = after !== undefined ? volumeIds.filter((id) => id > after) : volumeIds.slice(cursor?.offset ?? 0);
      const pageIds = rest.slice(0, query.limit);
      const volumes = (await this.store.getMany(pageIds.map(volumeKey))).filter(isVolume);
      volumes.sort((a, b) => byCodeUnits(a.volumeId, b.volumeId));
      const last = pageIds[pageIds.length - 1];
      return {
        items: volumes.map(listed).filter(matches),
        ...(last !== undefined && rest.length > pageIds.length ? { cursor: encodeCursor({ filter, after: last }) } : {}),
      };
    }

    // Ask the store only for what is still missing, so its cursor never skips an unreturned item.
    const items: VolumeListItem[] = [];
    let storeCursor = cursor?.store;
    for (let reads = 0; reads < MAX_STORE_READS_PER_PAGE && items.length < query.limit; reads++) {
      const page = await this.listStore(query.limit - items.length, storeCursor);
      items.push(...page.items.filter(isVolume).map(listed).filter(matches));
      storeCursor = page.cursor;
      if (storeCursor === undefined) break;
    }
    return { items, ...(storeCursor !== undefined ? { cursor: encodeCursor({ filter, store: storeCursor }) } : {}) };
  }

  private async listStore(limit: number, cursor: string | undefined) {
    try {
      return await this.store.list({ kind: 'volume', limit, ...(cursor !== undefined ? { cursor } : {}) });
    } catch (error) {
      if (error instanceof InvalidCursorError) throw invalidCursor('is not a cursor this API issued');
      throw error;
    }
  }

  /** The volume with its attachments and status; 404 when there is no such volume. */
  async getVolume(volumeId: string): Promise<VolumeDetails> {
    return this.details(volumeId);
  }

  /**
   * Grows the volume or changes its type, IOPS, throughput or tags: the merged spec must be a valid
   * spec and a change EBS can make of the volume as it is (`specChangeIssues`, the rule the watcher
   * and the planner apply). Bumps `generation` so the system acts on it; no-op when nothing
   * changes. Conditional on the version it read: a concurrent change never merges silently, and a
   * creation or observation landing meanwhile (a new baseline) has the change judged again; with
   * `ifMatch`, a concurrent client change (a new generation) is 412 on that second look.
   */
  async patchVolume(volumeId: string, patch: PatchVolumeRequest, ifMatch?: Precondition): Promise<VolumeDetails> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const { record: current, stored } = await this.requireVolume(volumeId);
      requirePrecondition(ifMatch, `volume ${volumeId}`, current);
      if (current.life === 'dying') {
        throw new ApiProblem('conflict', `volume ${volumeId} is being deleted and can no longer change`);
      }
      const merged = validateVolumeSpec(applyPatch(current.spec, patch));
      if (!merged.ok) {
        const issues = patchFieldIssues(merged.issues);
        throw invalid(`the change to volume ${volumeId} makes an invalid spec: ${describeValidationIssues(issues)}`, issues);
      }
      const next = merged.value;
      if (sameSpec(current.spec, next)) return this.details(volumeId);
      // First what EBS allows: the placement of a volume CreateVolume was asked for is fixed, and no other placement would do.
      const issues = changeIssues(current, next, patch);
      if (issues.length > 0) throw invalid(`the change to volume ${volumeId} is not allowed: ${describeValidationIssues(issues)}`, issues);
      if (!isPlaced(next) && PLACEMENT_FIELDS.some((field) => patch[field] !== undefined)) {
        const placement = [{ path: 'availabilityZone', message: 'is required unless placementInstanceId names an instance whose AZ the volume goes in' }];
        throw invalid(`the change to volume ${volumeId} leaves it no placement: ${describeValidationIssues(placement)}`, placement);
      }
      if (current.spec.multiAttach && !next.multiAttach) await this.requireOneInstance(volumeId);
      try {
        const generation = current.generation + 1;
        // A change to a volume in error is its retry too: written with it, as `requestRetry` does, so the answer shows the retry.
        // The refusal of the spec it replaces no longer holds: the system judges the new one (its call may wait minutes in line).
        const status =
          current.status.state === 'error'
            ? retryRequested('volume', generation, this.clock.now())
            : current.status.code === SPEC_REJECTED_CODE
              ? { status: withoutSpecRejection(current.status, this.clock.now()) }
              : {};
        await this.store.update<VolumeRecord>(
          volumeKey(volumeId),
          { spec: next, generation, ...status },
          { ...versionRead(stored), life: 'alive', ...(ifMatch ? generationRead(stored) : {}) },
        );
        return this.details(volumeId);
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new ApiProblem('conflict', `volume ${volumeId} was changed concurrently; read it again and retry`);
  }

  /**
   * 409 unless the volume's live attachments name one instance at most: a volume that is not
   * multi-attach is attached to one, and the others would wait for it without end. An attachment
   * record that is not valid counts, as it does against an attach (`attachableAs`): it may be attached.
   */
  private async requireOneInstance(volumeId: string): Promise<void> {
    const attachments = await this.readAttachmentsOf(volumeId);
    const instances = attachments
      .filter((read) => !read.ok || read.record.life === 'alive')
      .map(instanceOf)
      .sort();
    if (instances.length <= 1) return;
    const named = instances.join(', ');
    const detail = `volume ${volumeId} has attachments to ${instances.length} instances (${named}); a volume that is not multi-attach is attached to one: detach it from all but one first`;
    const unreadable = attachments.find(isInvalid);
    if (unreadable) throw invalidRecordProblem(`the attachment of ${volumeId} to ${instanceOf(unreadable)}`, unreadable, detail);
    throw new ApiProblem('conflict', detail, [{ path: 'multiAttach', message: `the volume has attachments to ${named}; detach it from all but one first` }]);
  }

  /**
   * Asks the system to try again after a terminal error: bumps `generation` without changing the
   * spec, which the watcher takes as a retry request. 409 unless the volume is alive and in `error`.
   */
  async retryVolume(volumeId: string, ifMatch?: Precondition): Promise<VolumeDetails> {
    await this.requestRetry(volumeKey(volumeId), `volume ${volumeId}`, 'being deleted', ifMatch);
    return this.details(volumeId);
  }

  /**
   * Asks the system to try attaching again after a terminal error (e.g. an AZ mismatch the client
   * has since fixed): bumps the attachment's `generation`, which the watcher takes as a retry
   * request, exactly as for volumes. 404 when absent; 409 unless it is alive and in `error`, and
   * while its volume record does not exist (removed from the table) or is being deleted: there is
   * nothing to attach. A volume record that is not valid is a 409 `invalid-record`, as the system
   * does nothing with it.
   */
  async retryAttachment(volumeId: string, instanceId: string, ifMatch?: Precondition): Promise<AttachmentView> {
    const label = `attachment of ${volumeId} to ${instanceId}`;
    const written = await this.requestRetry(attachmentKey(volumeId, instanceId), label, 'being detached', ifMatch, async (current) => {
      const raw = await this.store.get(volumeKey(volumeId));
      const read = raw && isVolume(raw) ? readRecord(raw, 'volume') : undefined;
      // A volume record that is not valid is never acted on, here as on the other routes.
      if (read && !read.ok) throw invalidRecordProblem(`volume ${volumeId}`, read, `${label} cannot be retried: it attaches volume ${volumeId}`);
      const volume = read?.record;
      // Retried, it would attach the volume record written again beside the one the removed record left attached.
      if (current.kind === 'attachment' && volumeRecordLost(current, volume))
        throw new ApiProblem(
          'conflict',
          `${label} cannot be retried: it may still hold the EC2 volume of the removed volume record ${volumeId} attached to ${instanceId}${current.device ? ` as ${current.device}` : ''}; ` +
            `delete this attachment (the volumes tagged with that id are detached from the instance), then attach the volume again`,
        );
      if (!volume)
        throw new ApiProblem('conflict', `${label} cannot be retried: volume record ${volumeId} does not exist; create the volume again first, or delete the attachment`);
      // A dying volume detaches and removes its attachments: a retried one would never attach.
      if (volume.life === 'dying')
        throw new ApiProblem('conflict', `${label} cannot be retried: volume ${volumeId} is being deleted, and its attachments are detached and removed with it`);
    });
    return attachmentView(written as AttachmentRecord);
  }

  /** Marks the volume dying: the system detaches everything, then deletes it. Idempotent. */
  async deleteVolume(volumeId: string, ifMatch?: Precondition): Promise<VolumeDetails> {
    const marked = (await this.markDying(volumeKey(volumeId), `volume ${volumeId}`, ifMatch)) as VolumeRecord;
    try {
      return await this.details(volumeId);
    } catch (error) {
      // Its delete finished (the record removed, its attachments before it) between the mark and this
      // read: the request took, and is answered as accepted with the volume as marked.
      if (error instanceof ApiProblem && error.kind === 'not-found') return { ...volumeView(marked), attachments: [] };
      throw error;
    }
  }

  /**
   * Asks for the volume to be attached to the instance. The volume must exist and be alive;
   * repeating the request is harmless, with the device it was requested or allocated with too
   * (nothing is written); another device for an existing attachment is 409. With `ifMatch` the
   * attachment must exist already (RFC 9110 §13.1.1), so such a request never creates one.
   */
  async putAttachment(
    volumeId: string,
    instanceId: string,
    request: PutAttachmentRequest,
    options: {
      /** Body path the request came in under, for field messages (`attachTo` on create). */
      bodyPath?: string;
      ifMatch?: Precondition;
    } = {},
  ): Promise<Created<AttachmentView>> {
    const { bodyPath = '', ifMatch } = options;
    const field = (name: string) => (bodyPath ? `${bodyPath}.${name}` : name);
    const label = `the attachment of ${volumeId} to ${instanceId}`;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const { record: volume } = await this.requireVolume(volumeId);
      const attachments = await this.readAttachmentsOf(volumeId);
      const current = attachments.find((read) => instanceOf(read) === instanceId);
      requirePrecondition(ifMatch, label, current && validOrThrow(current, label).record);
      const existing = await this.attachableAs(volume, attachments, instanceId, request, field);
      if (existing) return { created: false, value: attachmentView(existing) };
      const record = newAttachmentRecord(volume, instanceId, this.isoNow(), request.device);
      try {
        await this.store.create(record);
        return { created: true, value: attachmentView(record) };
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new ApiProblem('conflict', `the attachment of ${volumeId} to ${instanceId} changed concurrently; retry`);
  }

  /**
   * Whether `volume` (with its `attachments`) may be attached to `instanceId` as `request` asks:
   * the attachment that already does so (a repeated request), undefined when a new one may be
   * written, or the conflict as a 409.
   */
  private async attachableAs(
    volume: VolumeRecord,
    attachments: Read<AttachmentRecord>[],
    instanceId: string,
    request: PutAttachmentRequest,
    field: (name: string) => string,
  ): Promise<AttachmentRecord | undefined> {
    const { volumeId } = volume;
    const found = attachments.find((read) => instanceOf(read) === instanceId);
    if (volume.life === 'dying') {
      throw new ApiProblem('conflict', `volume ${volumeId} is being deleted and cannot be attached`);
    }
    if (found) {
      const existing = validOrThrow(found, `the attachment of ${volumeId} to ${instanceId}`).record;
      if (existing.life === 'dying') {
        throw new ApiProblem('conflict', `volume ${volumeId} is being detached from ${instanceId}; wait until it is detached`);
      }
      if (volumeRecordLost(existing, volume)) {
        // It belongs to a removed record under this id: it never attaches the volume of this one, and a retry is refused.
        throw new ApiProblem(
          'conflict',
          `the attachment of ${volumeId} to ${instanceId} belongs to a removed volume record ${volumeId} and never attaches the volume of the current one: ` +
            `it may still hold the removed record's EC2 volume${existing.device ? ` as ${existing.device}` : ''}; ` +
            `delete this attachment (the volumes tagged with that id are detached from the instance), then attach the volume again`,
        );
      }
      const conflict = request.device === undefined ? undefined : deviceConflict(existing, request.device);
      if (conflict) throw new ApiProblem('conflict', conflict.detail, [{ path: field('device'), message: conflict.message }]);
      return existing;
    }
    if (!volume.spec.multiAttach) {
      // One the system does nothing with may still be attached: it stands in the way until put right.
      const unreadable = attachments.find(isInvalid);
      if (unreadable) {
        throw invalidRecordProblem(`the attachment of ${volumeId} to ${instanceOf(unreadable)}`, unreadable, `volume ${volumeId} is not multi-attach and cannot be attached beside another attachment`);
      }
    }
    const others = attachments.flatMap((read) => (read.ok && read.record.life === 'alive' ? [read.record] : []));
    if (others.length > 0 && !volume.spec.multiAttach) {
      // Say "has an attachment": it may still be pending, not attached yet.
      const held = others.map((a) => `${a.instanceId} (${a.status.state})`).join(', ');
      throw new ApiProblem('conflict', `volume ${volumeId} already has an attachment to ${held} and is not multi-attach; detach it first`, [
        { path: field('instanceId'), message: `the volume is not multi-attach and already has an attachment to ${others.map((a) => a.instanceId).join(', ')}` },
      ]);
    }
    // One the system does nothing with may still be attached (as above): it counts toward EBS's limit too.
    const invalid = attachments.filter(isInvalid).length;
    if (volume.spec.multiAttach && others.length + invalid >= MULTI_ATTACH_MAX_INSTANCES) {
      // EC2 would refuse the attach: it ends in error once its attempts run out.
      const held = others.length + invalid;
      const ofThem = invalid === 0 ? '' : ` (${invalid} of them ${invalid === 1 ? 'a record' : 'records'} not valid, which may still be attached: put ${invalid === 1 ? 'it' : 'them'} right in the table or remove ${invalid === 1 ? 'it' : 'them'})`;
      throw new ApiProblem(
        'conflict',
        `volume ${volumeId} already has attachments to ${held} instances${ofThem}, the most EBS attaches a Multi-Attach volume to; detach it from one first`,
        [{ path: field('instanceId'), message: `the volume already has attachments to ${held} instances, the most EBS allows for a Multi-Attach volume` }],
      );
    }
    if (request.device !== undefined) {
      // Another attachment on the instance holds that name (asked for it, or was given it): EC2 would refuse the attach.
      // Compared by slot, as the executor allocates names: /dev/sdf and /dev/xvdf are one attachment point.
      const slot = deviceSlot(request.device);
      const holder = validRecords(await this.readAttachmentsOfInstance(instanceId)).find((a) => {
        const held = a.device ?? a.requestedDevice;
        return a.life === 'alive' && a.volumeId !== volumeId && held !== undefined && deviceSlot(held) === slot;
      });
      if (holder) {
        const held = holder.device ?? holder.requestedDevice;
        const as = held === request.device ? '' : ` as ${held}`;
        throw new ApiProblem('conflict', `device ${request.device} on ${instanceId} is held by volume ${holder.volumeId}${as} (${holder.status.state}); choose another device or leave it out`, [
          { path: field('device'), message: `is held by volume ${holder.volumeId}${as} on ${instanceId}` },
        ]);
      }
    }
    return undefined;
  }

  /**
   * Marks the attachment dying: the system detaches the volume. Idempotent; 404 when absent.
   * `force`: EC2 detaches with `Force` (data not flushed may be lost); asked for on an attachment
   * already dying (a detach under way that EC2 cannot finish), it is set on it. A plain delete
   * leaves a force asked for before as it is.
   */
  async deleteAttachment(volumeId: string, instanceId: string, ifMatch?: Precondition, force = false): Promise<AttachmentView> {
    const record = await this.markDying(attachmentKey(volumeId, instanceId), `attachment of ${volumeId} to ${instanceId}`, ifMatch, force);
    return attachmentView(record as AttachmentRecord);
  }

  /** Every attachment of the instance, by volume id; one that is not valid is shown as such. */
  async listInstanceAttachments(instanceId: string): Promise<AttachmentListItem[]> {
    const attachments = await this.readAttachmentsOfInstance(instanceId);
    const nowMs = this.clock.now();
    return attachments
      .sort((a, b) => byCodeUnits(volumeOf(a), volumeOf(b)))
      .map((read) => (read.ok ? attachmentView(read.record) : invalidAttachmentView(read, nowMs)));
  }

  /** The volume's attachment records, each read as valid or not. */
  private async readAttachmentsOf(volumeId: string): Promise<Read<AttachmentRecord>[]> {
    return (await this.store.attachmentsOfVolume(volumeId)).map((raw) => readRecord(raw, 'attachment'));
  }

  /** The instance's attachment records, each read as valid or not. */
  private async readAttachmentsOfInstance(instanceId: string): Promise<Read<AttachmentRecord>[]> {
    return (await this.store.attachmentsOfInstance(instanceId)).map((raw) => readRecord(raw, 'attachment'));
  }

  /**
   * The retry request: bumps `generation` of a live record in `error` and puts it back to `pending`
   * (`retryRequested`, as the watcher does for a bump written straight into the table), its
   * spec left alone, so the answer and a client waiting on the record see the retry at once. The
   * write holds only if nothing wrote the record since it was read. `label` names the record in
   * messages; `dyingAs` says what dying is for it; `mayRetry` throws what else stands in the way,
   * once the record is found retryable.
   */
  private async requestRetry(key: RecordKey, label: string, dyingAs: string, ifMatch: Precondition | undefined, mayRetry?: (current: ProvisionerRecord) => Promise<void>) {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const raw = await this.store.get(key);
      if (!raw) throw new ApiProblem('not-found', `${label} does not exist`);
      const { record: current, stored } = validOrThrow(readRecord(raw, key.kind), label);
      requirePrecondition(ifMatch, label, current);
      if (current.life === 'dying') throw new ApiProblem('conflict', `${label} is ${dyingAs}`);
      if (current.status.state !== 'error') {
        throw new ApiProblem('conflict', `${label} is ${current.status.state}, not in error: there is nothing to retry`);
      }
      await mayRetry?.(current);
      try {
        const generation = (current.generation ?? 1) + 1;
        const changes = { generation, ...retryRequested(key.kind, generation, this.clock.now()) };
        const written = await this.store.update(key, changes, { ...versionRead(stored), ...generationRead(stored), life: 'alive' });
        return readOrAsWritten(written, current);
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new ApiProblem('conflict', `${label} was changed concurrently; read it again and retry`);
  }

  /**
   * Sets `life: dying` unless it already is, and on an attachment `forceDetach` as asked (a plain
   * delete of a live one drops one written into the table); `label` names the record in messages. Leaves
   * `generation` as it is: an earlier version's unrecorded CreateVolume is rebuilt from it.
   */
  private async markDying(key: RecordKey, label: string, ifMatch: Precondition | undefined, forceDetach = false): Promise<ProvisionerRecord> {
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const raw = await this.store.get(key);
      if (!raw) throw new ApiProblem('not-found', `${label} does not exist`);
      const read = readRecord(raw, key.kind);
      // A volume whose spec alone is beyond the EBS limits is deleted all the same, once dying; an
      // attachment asking for a device EC2 refuses (asked for before names were held to EC2's) is detached all the same.
      const { record: current, stored } = validOnceDying(read) ?? validOrThrow(read, label);
      requirePrecondition(ifMatch, label, current);
      const forced = current.kind === 'attachment' && current.forceDetach === true;
      // Dying already: only a force not yet asked for changes it (a detach under way that EC2 cannot finish).
      if (current.life === 'dying' && (!forceDetach || forced)) return current;
      const expected: ProvisionerRecord = { ...current, life: 'dying' };
      let changes: RecordChanges<AttachmentRecord> = { life: 'dying' };
      if (expected.kind === 'attachment' && forceDetach) {
        // Marked dying and forced in one write, or forced while dying.
        expected.forceDetach = true;
        changes = current.life === 'dying' ? { forceDetach: true } : { life: 'dying', forceDetach: true };
      } else if (expected.kind === 'attachment' && expected.forceDetach !== undefined) {
        // A plain delete is a plain detach, whatever was written straight into the table while alive.
        delete expected.forceDetach;
        changes = { life: 'dying', forceDetach: null };
      }
      try {
        const written = await this.store.update(key, changes as RecordChanges, { life: current.life, ...(ifMatch ? generationRead(stored) : {}) });
        return readOrAsWritten(written, expected);
      } catch (error) {
        if (!(error instanceof ConditionFailedError)) throw error;
      }
    }
    throw new ApiProblem('conflict', `${label} changed concurrently; retry`);
  }

  /**
   * Evaluates `ifMatch` alone on the volume's record as the routes do before they act, throwing
   * its 412: for a request refused for its body, whose precondition RFC 9110 §13.2.1 evaluates
   * first. Nothing when it holds, nor when the record is missing or not valid, which the routes
   * refuse before evaluating it (`use` `delete`: a volume valid once dying is deleted all the same).
   */
  async checkVolumePrecondition(volumeId: string, ifMatch: Precondition, use: 'change' | 'delete'): Promise<void> {
    const raw = await this.store.get(volumeKey(volumeId));
    if (!raw || !isVolume(raw)) return;
    const read = readRecord(raw, 'volume');
    const valid = read.ok ? read : use === 'delete' ? validOnceDying(read) : undefined;
    if (valid) requirePrecondition(ifMatch, `volume ${volumeId}`, valid.record);
  }

  /**
   * `checkVolumePrecondition` for an attachment. `use` `attach` (PUT): its volume must be there
   * and valid, and the attachment must exist (a PUT with `If-Match` never creates one); `delete`:
   * an attachment valid once dying is detached all the same.
   */
  async checkAttachmentPrecondition(volumeId: string, instanceId: string, ifMatch: Precondition, use: 'change' | 'attach' | 'delete'): Promise<void> {
    if (use === 'attach') {
      const volume = await this.store.get(volumeKey(volumeId));
      if (!volume || !isVolume(volume) || !readRecord(volume, 'volume').ok) return;
    }
    const raw = await this.store.get(attachmentKey(volumeId, instanceId));
    const read = raw && readRecord(raw, 'attachment');
    const valid = read && !read.ok ? (use === 'delete' ? validOnceDying(read) : undefined) : read;
    if (read && !valid) return;
    if (!valid && use !== 'attach') return;
    const label = use === 'attach' ? `the attachment of ${volumeId} to ${instanceId}` : `attachment of ${volumeId} to ${instanceId}`;
    requirePrecondition(ifMatch, label, valid?.record);
  }

  /** The volume's record, valid; 404 when there is none, 409 when it is not valid. */
  private async requireVolume(volumeId: string): Promise<Valid<VolumeRecord>> {
    const raw = await this.store.get(volumeKey(volumeId));
    if (!raw || !isVolume(raw)) throw new ApiProblem('not-found', `volume ${volumeId} does not exist`);
    return validOrThrow(readRecord(raw, 'volume'), `volume ${volumeId}`);
  }

  private async existingVolume(error: ConditionFailedError, volumeId: string): Promise<VolumeRecord> {
    const current = error.current ?? (await this.store.get(volumeKey(volumeId)));
    if (!current || !isVolume(current)) {
      // Taken a moment ago and already gone: the id is in flux, let the client retry.
      throw new ApiProblem('conflict', `volume ${volumeId} is being replaced; retry`);
    }
    return validOrThrow(readRecord(current, 'volume'), `volume ${volumeId}`).record;
  }

  private async details(volumeId: string): Promise<VolumeDetails> {
    const { record: volume } = await this.requireVolume(volumeId);
    const attachments = (await this.readAttachmentsOf(volumeId)).sort((a, b) => byCodeUnits(instanceOf(a), instanceOf(b)));
    const waitOf = await this.rateWaits(volume, validRecords(attachments));
    const withWait = <T extends object>(view: T, record: VolumeRecord | AttachmentRecord): T => {
      const rateWait = waitOf(record);
      return rateWait ? { ...view, rateWait } : view;
    };
    const nowMs = this.clock.now();
    return {
      ...withWait(volumeView(volume), volume),
      attachments: attachments.map((read) => (read.ok ? withWait(attachmentView(read.record), read.record) : invalidAttachmentView(read, nowMs))),
    };
  }

  /**
   * How long each record's next EC2 call waits in line for the account's request tokens. In a
   * burst the executors book EC2's buckets minutes ahead and a call waiting for its turn writes
   * nothing, so without this a record would sit in `pending` with no word why. One eventually
   * consistent read of the shared budget per bucket asked about; a failed read shows no wait. The
   * API's throttle (`API.throttleRatePerSecond`) keeps these reads far below what the bucket's
   * item serves, so clients polling in a burst never crowd out the executors' takes.
   */
  private async rateWaits(volume: VolumeRecord, attachments: readonly AttachmentRecord[]): Promise<(record: VolumeRecord | AttachmentRecord) => RateWait | undefined> {
    const budget = this.rateBudget;
    if (!budget) return () => undefined;
    const waiting = new Map<VolumeRecord | AttachmentRecord, MutatingAction>();
    const now = this.clock.now();
    for (const record of [volume, ...attachments]) {
      const action = nextCallWaitingForTokens(record, volume, attachments, now);
      if (action) waiting.set(record, action);
    }
    const seconds = new Map<RateBucket, number>();
    for (const bucket of new Set([...waiting.values()].map((action) => RATE_BUCKET_OF[action]))) {
      try {
        const waitMs = await budget.waitMs(bucket, this.accountRateBudgets[bucket], now);
        seconds.set(bucket, Math.ceil(waitMs / 1000));
      } catch (error) {
        this.log.warn('could not read the shared rate budget; no wait shown', { bucket, error: errorMessage(error) });
      }
    }
    return (record) => {
      const action = waiting.get(record);
      const wait = action && seconds.get(RATE_BUCKET_OF[action]);
      return action && wait ? { action, seconds: wait } : undefined;
    };
  }

  private isoNow(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

// ---------------------------------------------------------------------------------------------
// Attachments
// ---------------------------------------------------------------------------------------------

/**
 * Why an existing attachment cannot take `device`, or nothing when it already has it: the device
 * the client asked for before, or else the one the system allocated. An attachment asked for
 * without a device and not allocated one yet has none to match.
 */
function deviceConflict(existing: AttachmentRecord, device: string): { detail: string; message: string } | undefined {
  if (device === existing.requestedDevice || device === existing.device) return undefined;
  const attachment = `the attachment of ${existing.volumeId} to ${existing.instanceId} (${existing.status.state})`;
  const detachFirst = `it cannot change to ${device}: detach it first`;
  if (existing.requestedDevice !== undefined) {
    return {
      detail: `${attachment} was requested as ${existing.requestedDevice}; ${detachFirst}`,
      message: `differs from ${existing.requestedDevice}, the device requested before`,
    };
  }
  if (existing.device !== undefined) {
    return {
      detail: `${attachment} has device ${existing.device}, chosen by the system; ${detachFirst}`,
      message: `differs from ${existing.device}, the device the system chose`,
    };
  }
  return {
    detail: `${attachment} was requested without a device, so the system chooses one; ${detachFirst}`,
    message: 'the attachment was requested without a device; the system chooses one',
  };
}

// ---------------------------------------------------------------------------------------------
// Specs
// ---------------------------------------------------------------------------------------------

/** Why a spec with no placement is refused: EBS creates a volume in one AZ, and nothing names it. */
const UNPLACED = 'is required unless placementInstanceId or attachTo names an instance whose AZ the volume goes in';

/** Whether the request leaves the volume's placement to `attachTo`: no AZ and no placement instance. */
function placedByAttachTo(request: CreateVolumeRequest): boolean {
  return request.attachTo !== undefined && request.spec.availabilityZone === undefined && request.spec.placementInstanceId === undefined;
}

/** The spec as stored: with no AZ and no placement, a volume created for an instance goes in its AZ. */
function placedSpec(request: CreateVolumeRequest): VolumeSpec {
  return withoutEmptyTags(placedByAttachTo(request) ? { ...request.spec, placementInstanceId: request.attachTo!.instanceId } : request.spec);
}

/** An empty tag map asks for no tags, as an absent one does (a PATCH's `{}` removes them): one spec for both. */
function withoutEmptyTags(spec: VolumeSpec): VolumeSpec {
  if (spec.tags === undefined || Object.keys(spec.tags).length > 0) return spec;
  const { tags: _empty, ...rest } = spec;
  return rest;
}

const PLACEMENT_FIELDS: ReadonlyArray<'availabilityZone' | 'placementInstanceId'> = ['availabilityZone', 'placementInstanceId'];

/**
 * How a repeated create differs from the volume that exists under its id, one issue per field the
 * client wrote: `spec.<field>` for the spec's own fields, `attachTo.instanceId` when the placement
 * differs only because `attachTo` names another instance than the one the volume is placed by.
 * IOPS and throughput are compared as EBS provisions them (`provisionedPerformance`): a gp3 spec
 * that spells out the baseline (3000 IOPS, 125 MiB/s) asks for the volume one that leaves it out does;
 * so does one that spells out `encrypted: false` or `multiAttach: false` (`sameSpecValue`).
 */
function createDifferences(existingSpec: VolumeSpec, wanted: VolumeSpec, request: CreateVolumeRequest): FieldIssue[] {
  const existing = withoutEmptyTags(existingSpec);
  const fromAttachTo = placedByAttachTo(request);
  const provisioned = { existing: provisionedPerformance(existing), wanted: provisionedPerformance(wanted) };
  const differs = (field: keyof VolumeSpec) => {
    if (sameSpecValue(field, existing[field], wanted[field])) return false;
    // IOPS or throughput left out are what EBS provisions for the type (gp3's baseline): spelt out, the same volume.
    return !isPerformanceField(field) || provisioned.existing[field] !== provisioned.wanted[field];
  };
  const shown = (spec: 'existing' | 'wanted', field: keyof VolumeSpec) => {
    const value = (spec === 'existing' ? existing : wanted)[field];
    const byDefault = isPerformanceField(field) && value === undefined ? provisioned[spec][field] : undefined;
    return byDefault === undefined ? shownValue(value) : `${shownValue(value)} (${byDefault} by default)`;
  };
  const fields = [...new Set([...Object.keys(existing), ...Object.keys(wanted)] as Array<keyof VolumeSpec>)].sort();
  const issues: FieldIssue[] = fields
    .filter((field) => differs(field) && !(fromAttachTo && (PLACEMENT_FIELDS as ReadonlyArray<keyof VolumeSpec>).includes(field)))
    .map((field) => ({ path: `spec.${field}`, message: `is ${shown('wanted', field)} here, ${shown('existing', field)} on the volume` }));
  if (fromAttachTo && PLACEMENT_FIELDS.some(differs)) {
    issues.unshift({
      path: 'attachTo.instanceId',
      message: `places the volume in the AZ of ${request.attachTo!.instanceId}, but the volume is placed ${describePlacement(existing)}`,
    });
  }
  return issues;
}

function isPerformanceField(field: keyof VolumeSpec): field is 'iops' | 'throughput' {
  return field === 'iops' || field === 'throughput';
}

function describePlacement(spec: VolumeSpec): string {
  if (spec.placementInstanceId !== undefined) return `in the AZ of ${spec.placementInstanceId}`;
  return spec.availabilityZone !== undefined ? `in ${spec.availabilityZone}` : 'nowhere';
}

function shownValue(value: unknown): string {
  if (value === undefined) return 'not set';
  return typeof value === 'string' ? value : canonicalJson(value);
}

/**
 * What refuses the patch that takes `current` to `next`: `specChangeIssues`, judged by what the
 * patch changes (a field it sends as the spec already has it changes nothing: a client may send
 * the whole spec back with new tags). A volume's spec may already ask for what EBS cannot make of
 * it (a size below the one it was grown to outside the system, say). Tags may change at any time,
 * so a tag-only change is refused only for issues of its own. A size, type, IOPS or throughput
 * change is made with the whole spec, so every issue refuses it; one the spec had before, on a
 * field the patch leaves as it is, says so. A new placement of a created volume placed by the other
 * field (one replaces the other) is one issue, on the field the patch names, saying how the volume
 * was placed: the other field is not one the client sent.
 */
function changeIssues(current: VolumeRecord, next: VolumeSpec, patch: PatchVolumeRequest): FieldIssue[] {
  const issues = patchFieldIssues(specChangeIssues(current, next));
  if (issues.length === 0) return issues;
  const before = new Set(patchFieldIssues(specChangeIssues(current)).map((issue) => `${issue.path}\u0000${issue.message}`));
  const earlier = (issue: FieldIssue) => before.has(`${issue.path}\u0000${issue.message}`);
  const changed: string[] = changedSpecFields(current.spec, next);
  if (changed.every((field) => field === 'tags')) return issues.filter((issue) => !earlier(issue));
  const asked = current.ebsVolumeId !== undefined ? `EC2 created it as ${current.ebsVolumeId}` : 'CreateVolume was asked for it already';
  const fixed = (issue: FieldIssue) => {
    const field = issue.path.split('.')[0]!;
    return changed.includes(field) && (IMMUTABLE_FIELDS as readonly string[]).includes(field);
  };
  const placementIssues = issues.filter((issue) => fixed(issue) && (PLACEMENT_FIELDS as readonly string[]).includes(issue.path));
  const named = PLACEMENT_FIELDS.find((field) => patch[field] !== undefined);
  const placement: FieldIssue | undefined =
    placementIssues.length === PLACEMENT_FIELDS.length && named !== undefined
      ? {
          path: named,
          message: `the volume's placement is fixed when the volume is created, and it was placed ${describePlacement(current.spec)} (${placedBy(current.spec)}): ${asked}, so delete the volume and create another to change it`,
        }
      : undefined;
  return issues.flatMap((issue) => {
    if (placement && placementIssues.includes(issue)) return issue === placementIssues[0] ? [placement] : [];
    if (fixed(issue)) return [{ ...issue, message: `${issue.message}: ${asked}, so delete the volume and create another to change it` }];
    const field = issue.path.split('.')[0]!;
    if (!earlier(issue) || changed.includes(field)) return [issue];
    return [
      {
        ...issue,
        message: `${issue.message} (so before this change, which leaves ${field} as it is: a size, type, IOPS or throughput change is made only with a spec EBS can make as a whole)`,
      },
    ];
  });
}

/** The spec field that places a volume, named beside `describePlacement`. */
function placedBy(spec: VolumeSpec): string {
  return spec.placementInstanceId !== undefined ? 'placementInstanceId' : 'availabilityZone';
}

/** A PATCH body holds the spec's own fields, so its messages name them without the `spec.` prefix. */
function patchFieldIssues(issues: ValidationIssue[]): FieldIssue[] {
  return issues.map((issue) => ({ ...issue, path: issue.path.replace(/^spec\./, '') }));
}

function applyPatch(spec: VolumeSpec, patch: PatchVolumeRequest): VolumeSpec {
  const next: VolumeSpec = { ...spec };
  if (patch.sizeGiB !== undefined) next.sizeGiB = patch.sizeGiB;
  if (patch.volumeType !== undefined) next.volumeType = patch.volumeType;
  if (patch.iops === null) delete next.iops;
  else if (patch.iops !== undefined) next.iops = patch.iops;
  if (patch.throughput === null) delete next.throughput;
  else if (patch.throughput !== undefined) next.throughput = patch.throughput;
  // The tag map is replaced whole, not merged key by key: what a client sends is what EC2 ends up holding.
  if (patch.tags === null || (patch.tags !== undefined && Object.keys(patch.tags).length === 0)) delete next.tags;
  else if (patch.tags !== undefined) next.tags = patch.tags;
  // One placement replaces the other, unless the patch names both.
  if (typeof patch.availabilityZone === 'string' && patch.placementInstanceId === undefined) delete next.placementInstanceId;
  if (typeof patch.placementInstanceId === 'string' && patch.availabilityZone === undefined) delete next.availabilityZone;
  for (const field of IMMUTABLE_FIELDS) {
    const value = patch[field];
    if (value === null) delete next[field];
    else if (value !== undefined) Object.assign(next, { [field]: value });
  }
  return next;
}

/**
 * Whether two specs (both already validated) ask EBS for the same, field by field as a repeated
 * create compares them (`sameSpecValue`): key order aside, `false` for `encrypted` or `multiAttach`
 * is the same as leaving it out, and an empty tag map as none.
 */
export function sameSpec(a: VolumeSpec, b: VolumeSpec): boolean {
  return changedSpecFields(a, b).length === 0;
}

/** The fields in which two specs (both already validated) ask EBS for something else, compared as `sameSpec` compares them. */
function changedSpecFields(a: VolumeSpec, b: VolumeSpec): Array<keyof VolumeSpec> {
  const [first, second] = [withoutEmptyTags(a), withoutEmptyTags(b)];
  const fields = new Set([...Object.keys(first), ...Object.keys(second)] as Array<keyof VolumeSpec>);
  return [...fields].filter((field) => !sameSpecValue(field, first[field], second[field]));
}

// ---------------------------------------------------------------------------------------------
// Views: what the API shows of a record (no claim, no version)
// ---------------------------------------------------------------------------------------------

/**
 * The EC2 action a record's next step calls, when that call has not started and nothing else
 * holds it back: no live claim (a call under way), no retry backoff running, nothing to wait for.
 */
function nextCallWaitingForTokens(
  record: VolumeRecord | AttachmentRecord,
  volume: VolumeRecord,
  attachments: readonly AttachmentRecord[],
  now: number,
): MutatingAction | undefined {
  if (record.claim && record.claim.expiresAt > now) return undefined;
  const nextAttemptAt = record.status.nextAttemptAt;
  if (nextAttemptAt !== undefined && Date.parse(nextAttemptAt) > now) return undefined;
  try {
    const decision = record.kind === 'volume' ? planVolume(record, attachments, now) : planAttachment(record, volume);
    return decision.type === 'operation' ? firstActionOf(decision.op, record) : undefined;
  } catch {
    return undefined; // a record the planner cannot read; the watcher reports it
  }
}

/**
 * Ids in the order of their UTF-16 code units, as `GET /volumes` lists them (and as DynamoDB sorts
 * its keys), the same on every runtime: not `localeCompare`, whose order depends on the locale
 * data (`a` before `A`, `_` before `-`).
 */
function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function isVolume(record: { kind: string }): record is VolumeRecord {
  return record.kind === 'volume';
}

/** The instance an attachment record names, valid or not (its key names it). */
function instanceOf(read: Read<AttachmentRecord>): string {
  return read.ok ? read.record.instanceId : (read.raw as AttachmentRecord).instanceId;
}

/** The volume an attachment record names, valid or not (its key names it). */
function volumeOf(read: Read<AttachmentRecord>): string {
  return read.ok ? read.record.volumeId : read.raw.volumeId;
}

function isInvalid<R extends ProvisionerRecord>(read: Read<R>): read is Extract<Read<R>, { ok: false }> {
  return !read.ok;
}

function validRecords<R extends ProvisionerRecord>(reads: readonly Read<R>[]): R[] {
  return reads.flatMap((read) => (read.ok ? [read.record] : []));
}

/** A record as a write left it, read again; as `expected` should the write have left it unreadable. */
function readOrAsWritten<R extends ProvisionerRecord>(written: ProvisionerRecord, expected: R): R {
  const read = readRecord(written, expected.kind);
  return read.ok ? (read.record as R) : expected;
}

/**
 * A status as the API shows it: its message within the bound the system writes to
 * (`MAX_STATUS_MESSAGE_CHARS`), a longer one (written into the table by hand) shortened as the
 * system shortens its own. The record is left as it is.
 */
function shownStatus<S extends { message?: string }>(status: S): S {
  if (status.message === undefined) return status;
  const message = shortenMessage(status.message);
  return message === status.message ? status : { ...status, message };
}

export function volumeView(record: VolumeRecord): VolumeView {
  return {
    volumeId: record.volumeId,
    spec: record.spec,
    life: record.life,
    generation: record.generation,
    status: shownStatus(record.status),
    ...(record.ebsVolumeId !== undefined ? { ebsVolumeId: record.ebsVolumeId } : {}),
    ...(record.availabilityZone !== undefined ? { availabilityZone: record.availabilityZone } : {}),
    ...(record.observedGeneration !== undefined ? { observedGeneration: record.observedGeneration } : {}),
    ...(record.observed !== undefined ? { observed: record.observed } : {}),
    createdAt: record.createdAt,
  };
}

export function attachmentView(record: AttachmentRecord): AttachmentView {
  return {
    volumeId: record.volumeId,
    instanceId: record.instanceId,
    life: record.life,
    ...(record.requestedDevice !== undefined ? { requestedDevice: record.requestedDevice } : {}),
    ...(record.forceDetach !== undefined ? { forceDetach: record.forceDetach } : {}),
    generation: record.generation ?? 1,
    ...(record.device !== undefined ? { device: record.device } : {}),
    status: shownStatus(record.status),
    createdAt: record.createdAt,
  };
}

// ---------------------------------------------------------------------------------------------
// Cursors: opaque to clients, bound to the filter they were issued for
// ---------------------------------------------------------------------------------------------

interface ListCursor {
  filter: string;
  /** The store's own cursor (table scan). */
  store?: string;
  /** The last volume id returned (instance filter): the next page starts after it. */
  after?: string;
  /** Position in the instance's sorted volume ids (instance filter), as an earlier version issued it. */
  offset?: number;
}

function filterKey(query: ListVolumesQuery): string {
  return `${query.instanceId ?? ''}|${query.state ?? ''}`;
}

function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');
}

function invalidCursor(message: string) {
  return invalid(`the cursor is not usable: it ${message}`, [{ path: 'cursor', message }]);
}

/**
 * Reads a cursor for the list it is given to: a table scan's cursor holds only the store's own
 * cursor, an instance's only the last volume id (or, as an earlier version issued it, a position).
 * Any other field, or one missing, is refused: the list must never start again from its first page.
 */
function decodeCursor(text: string, filter: string, list: 'scan' | 'instance'): ListCursor {
  const bad = invalidCursor;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    throw bad('is not a cursor this API issued');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw bad('is not a cursor this API issued');
  const cursor = parsed as Partial<ListCursor>;
  const fields = Object.keys(cursor).filter((key) => key !== 'filter').sort().join(',');
  const wellFormed =
    typeof cursor.filter === 'string' &&
    (cursor.store === undefined || typeof cursor.store === 'string') &&
    (cursor.after === undefined || typeof cursor.after === 'string') &&
    (cursor.offset === undefined || (Number.isSafeInteger(cursor.offset) && cursor.offset >= 0)) &&
    ['store', 'after', 'offset'].includes(fields);
  if (!wellFormed) throw bad('is not a cursor this API issued');
  if (cursor.filter !== filter) throw bad('was issued for a different state/instanceId filter');
  const fits = list === 'scan' ? fields === 'store' : fields === 'after' || fields === 'offset';
  if (!fits) throw bad('does not fit this list');
  return cursor as ListCursor;
}
