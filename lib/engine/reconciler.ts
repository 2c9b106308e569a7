/**
 * Repairs what messages alone cannot: work whose message was lost, records whose EC2 side moved
 * on without them (or behind their back), and volumes this deployment created that no record owns.
 * It never acts on EC2 itself: it enqueues checks for the executor and reports leaks.
 */
import { provisionedPerformance } from '../domain/ebs-limits.js';
import { keyNamesRecord, keyOf, keyString, type AttachmentRecord, type ProvisionerRecord, type VolumeRecord } from '../domain/records.js';
import { managedTagsOf, parseRecord, tagChanges } from '../domain/validation.js';
import { METRICS, OWNERSHIP_TAGS, RECONCILER } from '../settings.js';
import { RATE_BUCKET_OF, resolveEngineConfig, type EngineConfig, type RateBucket } from './config.js';
import { createUnanswered, firstActionOf, givenUpWithDevice, planAttachment, planVolume, UNDER_WAY_STATES, waitsForVolumeInUse, type Decision } from './planner.js';
import { judgeRecord, rejectionStands } from './rejection.js';
import { MODIFICATION_COOLDOWN_CODE, SPEC_REJECTED_CODE, VOLUME_RECORD_REMOVED_CODE } from './status.js';
import { ownedByAnotherRecord, type ExecutorDeps } from './executor.js';
import { errorMessage } from './errors.js';
import { changesWithoutCall } from './without-call.js';
import { checkScanSegment, ProviderError, type OperationKind, type Page, type ProviderVolume, type QueuedOperation, type ScanSegment } from './ports.js';

/** What the executor talks to (less its invocation-specific knobs), plus the scan's own settings. */
export interface ReconcilerDeps extends Omit<ExecutorDeps, 'random' | 'newOwnerId'> {
  /** Records per page of the table scan (and ids per DescribeVolumes). Default `describeChunkSize.volumes` (500). */
  pageSize?: number;
  /**
   * How long work may be overdue before its message counts as lost. Longer than the executor
   * takes to pick up a due message, so a message about to be picked up is not taken for lost (a record
   * under way for longer, a modification EC2 makes for hours, is looked at once each pass). Default 5 min.
   */
  overdueAfterMs?: number;
}

export interface ReconcileRunOptions {
  /** Milliseconds the invocation has left (Lambda's getRemainingTimeInMillis); unset: no limit. */
  remainingTimeMs?: number;
  /**
   * When the schedule fired (the scheduled event's `time`), in ms: the segment a pass begins with
   * follows it, since the passes' own start times drift with delivery and cold starts. Unset: the clock.
   */
  scheduledAt?: number;
}

export interface ReconcileReport {
  scanned: number;
  invalid: number;
  /** Records re-enqueued, with why. */
  requeued: { key: string; reason: string }[];
  /** EC2 volumes carrying this deployment's ownership tag that no record owns. */
  leaked: string[];
  /** Table segments scanned to the end, of all (`reconcilerScanSegments`): all when the pass looked at every record. */
  segments: { done: number; total: number };
  /** Every owned EC2 volume was judged: `leaked` is the whole count, not only the leaks found before time ran out. */
  leakCheckComplete: boolean;
}

/**
 * Time a pass keeps, once it stops starting scan requests, for the page under way and the leak
 * check: less the wrap-up's `WRAP_UP_RESERVE_MS`, some 30 s of listing owned volumes (a
 * DescribeVolumes of 500 in about half a second, plus a bulk read of the records of those the scan
 * did not reach), which judges about 30 000 volumes after a scan that used all its time (a pass
 * whose scan ends sooner lists for the rest of the invocation).
 */
export const SCAN_RESERVE_MS = 60_000;

/**
 * Time kept at the very end, once the leak check stops listing: its page under way at its worst
 * (the SDK's three attempts of up to 5 s each and the backoff between them, about 17 s, when EC2
 * is slow or throttling), the bulk read of its volumes' records, the log and the metric.
 */
export const WRAP_UP_RESERVE_MS = 30_000;

/** What the scan of a pass found, for the leak check and the report. */
interface ScanState {
  volumesByRecord: Map<string, VolumeRecord>;
  // Across pages: a volume's attachments sort before it (`ATTACHMENT#…` < `VOLUME`), so they may
  // sit at the end of the previous page.
  attachmentsByVolume: Map<string, AttachmentRecord[]>;
  // Volume records in the table that do not parse: their attachments are left as they are (the executor would not act on them).
  invalidVolumes: Set<string>;
  inLine: ReadonlySet<RateBucket>;
}

interface LeakCheck {
  leaked: ProviderVolume[];
  /** Every owned volume was listed. */
  listed: boolean;
  /** Owned volumes listed so far. */
  volumes: number;
  /** EC2 throttled or failed a listing request: the check stopped there, not for want of time. */
  failed: boolean;
  /** Volumes naming no record, whose owner may be in a segment the scan did not reach. */
  unjudged: string[];
}

/** Tag keys a reason names before it counts the rest. */
const REASON_TAG_KEYS = 5;

/**
 * Why the client tags EC2 holds that the system manages (`managedTagsOf`) differ from those the
 * record last observed (changed or removed outside the system), or undefined when they do not, or
 * when the record never observed them (written before tags were: an upgrade alone retags
 * nothing). Judged by `tagChanges`, as the planner judges the spec against them.
 */
function tagDrift(record: VolumeRecord, ec2Tags: Readonly<Record<string, string>>): string | undefined {
  const observed = record.observed?.tags;
  if (observed === undefined) return undefined;
  const back = tagChanges(managedTagsOf(record, ec2Tags), observed);
  if (!back) return undefined;
  const keys = [...Object.keys(back.set), ...back.remove];
  const more = keys.length - REASON_TAG_KEYS;
  return `EC2 tags differ from the record's: ${keys.slice(0, REASON_TAG_KEYS).join(', ')}${more > 0 ? ` and ${more} more` : ''}`;
}

/**
 * Why the size, type or performance EC2 reports for a volume differs from what its record last
 * observed (modified outside the system: in the console, say), or undefined when it does not.
 * Performance is compared as provisioned (`provisionedPerformance`: gp3's baseline where none is
 * named, gp2's IOPS not at all). A check then records what EC2 holds, and the planner judges the
 * spec against it: a change EBS can undo is undone, one it cannot (a grow) is shown as the spec's
 * rejection.
 */
function configurationDrift(record: VolumeRecord, actual: ProviderVolume): string | undefined {
  const observed = record.observed;
  if (!observed) return undefined;
  const held = { sizeGiB: actual.sizeGiB, volumeType: actual.volumeType, ...provisionedPerformance(actual) };
  const seen = { sizeGiB: observed.sizeGiB, volumeType: observed.volumeType, ...provisionedPerformance(observed) };
  const moved = (['sizeGiB', 'volumeType', 'iops', 'throughput'] as const).filter((field) => held[field] !== seen[field]);
  if (moved.length === 0) return undefined;
  return `EC2 reports ${moved.map((field) => `${field} ${held[field] ?? 'none'} (the record observed ${seen[field] ?? 'none'})`).join(', ')}`;
}

export class Reconciler {
  private readonly config: EngineConfig;
  private readonly pageSize: number;
  private readonly overdueAfterMs: number;

  constructor(private readonly deps: ReconcilerDeps) {
    this.config = resolveEngineConfig(deps.config);
    this.pageSize = deps.pageSize ?? this.config.describeChunkSize.volumes;
    this.overdueAfterMs = deps.overdueAfterMs ?? 5 * 60_000;
    checkScanSegment({ index: 0, total: this.config.reconcilerScanSegments });
  }

  /**
   * One pass: the table's segments in turn, then the leak check. With `remainingTimeMs` it starts
   * no scan page within SCAN_RESERVE_MS of the end and no listing page within WRAP_UP_RESERVE_MS,
   * and says what it left for the next passes.
   */
  async run(options: ReconcileRunOptions = {}): Promise<ReconcileReport> {
    const startedAt = this.deps.clock.now();
    const end = options.remainingTimeMs === undefined ? Number.POSITIVE_INFINITY : startedAt + options.remainingTimeMs;
    const total = this.config.reconcilerScanSegments;
    const report: ReconcileReport = { scanned: 0, invalid: 0, requeued: [], leaked: [], segments: { done: 0, total }, leakCheckComplete: false };
    const state: ScanState = { volumesByRecord: new Map(), attachmentsByVolume: new Map(), invalidVolumes: new Set(), inLine: await this.bucketsInLine() };

    // Each pass begins one segment further than the last (by the schedule's time: nothing is kept
    // between passes), so every segment begins a pass once in `total`, however few a pass gets through.
    const first = Math.floor((options.scheduledAt ?? startedAt) / (RECONCILER.intervalMinutes * 60_000)) % total;
    const order = Array.from({ length: total }, (_, i) => (first + i) % total);
    const left: number[] = [];
    let cutShort: { segment: number; scanned: number } | undefined;
    // A page gathers records across segments, so a small table costs the calls it did unsegmented.
    let page: ProvisionerRecord[] = [];
    for (const [position, index] of order.entries()) {
      const scanned = await this.scanSegment(total === 1 ? undefined : { index, total }, page, end - SCAN_RESERVE_MS, (full) => this.judgePage(full, state, report));
      report.scanned += scanned.records;
      page = scanned.rest;
      if (!scanned.finished) {
        // Out of time: this segment and the ones after it are the next passes'.
        left.push(...order.slice(position));
        if (scanned.records > 0) cutShort = { segment: index, scanned: scanned.records };
        break;
      }
      report.segments.done++;
    }
    if (page.length > 0) await this.judgePage(page, state, report);

    const scanComplete = report.segments.done === total;
    const leaks = await this.findLeaks(state.volumesByRecord, scanComplete, end - WRAP_UP_RESERVE_MS);
    report.leaked = leaks.leaked.map((volume) => volume.ebsVolumeId);
    report.leakCheckComplete = leaks.listed && leaks.unjudged.length === 0;
    // An alarm reads the count (> 0): a partial count is published only when it found leaks, never a 0 that did not look everywhere.
    if (report.leakCheckComplete || report.leaked.length > 0) this.deps.metrics.count(METRICS.leaked, report.leaked.length);
    // Every pass, complete or cut short: the heartbeat the ReconcilerNotRunning alarm counts.
    this.deps.metrics.count(METRICS.reconcilerPasses);
    for (const { key, reason } of report.requeued) this.deps.log.info('re-enqueued', { key, reason });
    if (report.leaked.length > 0) {
      // A record removed from the table may leave its volume attached, which nothing detaches until its attachment is deleted: say to which instances.
      const attachedTo = Object.fromEntries(
        leaks.leaked.flatMap((volume) => {
          const instances = volume.attachments.filter((a) => a.state !== 'detached').map((a) => a.instanceId);
          return instances.length > 0 ? [[volume.ebsVolumeId, instances]] : [];
        }),
      );
      this.deps.log.warn('volumes owned by this deployment have no record; not deleting them', {
        ebsVolumeIds: report.leaked,
        ...(Object.keys(attachedTo).length > 0 ? { attachedTo } : {}),
      });
    }
    if (leaks.unjudged.length > 0) {
      this.deps.log.warn('owned volumes without a record tag are judged only by a pass that scans the whole table', { ebsVolumeIds: leaks.unjudged });
    }
    if (!scanComplete || (!leaks.listed && !leaks.failed)) {
      // Listed whole, it is complete only with every volume judged: those naming no record wait for a pass over the whole table.
      const listed = leaks.unjudged.length === 0 ? 'complete' : `all ${leaks.volumes} owned volumes listed; ${leaks.unjudged.length} without a record tag not judged`;
      const leakCheck = leaks.listed ? listed : leaks.failed ? `EC2 failed the listing after ${leaks.volumes} owned volumes` : `stopped after ${leaks.volumes} owned volumes`;
      this.deps.log.warn('reconciler pass ran out of time; the next passes take up the rest', {
        segmentsDone: report.segments.done,
        segmentsTotal: total,
        segmentsLeft: left,
        ...(cutShort ? { segmentCutShort: cutShort.segment, recordsScannedOfIt: cutShort.scanned } : {}),
        leakCheck,
      });
    }
    if (cutShort && cutShort.segment === first) {
      // Begun with the whole pass ahead of it and still not finished: no pass reaches its tail.
      this.deps.log.warn('a table segment holds more than one pass can scan; raise reconcilerScanSegments', {
        segment: cutShort.segment,
        recordsScanned: cutShort.scanned,
        segmentsTotal: total,
      });
    }
    return report;
  }

  /**
   * Reads one segment (the whole table when undefined) onto `page`, handing each full page to
   * `judge`, until the segment ends or `until` comes. What is left on the page goes on with the next.
   */
  private async scanSegment(
    segment: ScanSegment | undefined,
    page: ProvisionerRecord[],
    until: number,
    judge: (full: ProvisionerRecord[]) => Promise<void>,
  ): Promise<{ finished: boolean; records: number; rest: ProvisionerRecord[] }> {
    let records = 0;
    let cursor: string | undefined;
    do {
      if (this.deps.clock.now() >= until) return { finished: false, records, rest: page };
      const read = await this.deps.store.list({ limit: this.pageSize - page.length, ...(cursor ? { cursor } : {}), ...(segment ? { segment } : {}) });
      cursor = read.cursor;
      records += read.items.length;
      page.push(...read.items);
      if (page.length >= this.pageSize) {
        await judge(page);
        page = [];
      }
    } while (cursor);
    return { finished: true, records, rest: page };
  }

  /** Judges one page of raw table items: parses them, then re-enqueues those that need a nudge, with one DescribeVolumes. */
  private async judgePage(items: ProvisionerRecord[], state: ScanState, report: ReconcileReport): Promise<void> {
    const { volumesByRecord, attachmentsByVolume, invalidVolumes, inLine } = state;
    const records: ProvisionerRecord[] = [];
    const unrejected: ProvisionerRecord[] = [];
    // Valid, but rejected all the same: context for the others, never nudged but for their rejection.
    const notWrittenRecords = new Set<ProvisionerRecord>();
    for (const raw of items) {
      const { record, rejection } = judgeRecord(raw, this.deps.clock.now(), this.config.claimLeaseMs);
      // Its status does not say why it is rejected (the watcher's change lost on the way): the executor writes it.
      if (rejection !== undefined && !rejectionStands(raw, rejection)) unrejected.push(raw);
      if (record) {
        records.push(record);
        // A claim or times the system did not write keep every executor off the record or hold it fresh: the watcher rejects it, and so does the executor then.
        if (rejection !== undefined) notWrittenRecords.add(record);
      } else {
        report.invalid++;
        if (raw.kind === 'volume') invalidVolumes.add(raw.volumeId);
        // Still an attachment of its volume, as the executor and the watcher read them (every record
        // under the volume's key): a dying volume waits for it, and is not nudged to be deleted.
        else if (raw.kind === 'attachment' && typeof raw.volumeId === 'string')
          attachmentsByVolume.set(raw.volumeId, [...(attachmentsByVolume.get(raw.volumeId) ?? []), raw]);
      }
    }
    for (const record of records) {
      if (record.kind === 'volume') volumesByRecord.set(record.volumeId, record);
      else attachmentsByVolume.set(record.volumeId, [...(attachmentsByVolume.get(record.volumeId) ?? []), record]);
    }
    await this.readVolumesOfAttachments(records, volumesByRecord, invalidVolumes);
    const judged = records.filter((record) => !notWrittenRecords.has(record) && (record.kind !== 'attachment' || !invalidVolumes.has(record.volumeId)));
    const requeue = [...(await this.pageRequeues(judged, volumesByRecord, attachmentsByVolume, inLine)), ...unrejected.filter((raw) => keyNamesRecord(keyOf(raw))).map((raw) => nudge(raw, 'invalid, and its status does not say why'))];
    if (requeue.length > 0) {
      await this.deps.queue.send(requeue.map(({ operation }) => operation));
      report.requeued.push(...requeue.map(({ key, reason }) => ({ key, reason })));
    }
  }

  /**
   * Volume records of the page's attachments that the scan has not reached yet (they sort after
   * their attachments), in one bulk read, so an attachment is judged against its volume.
   */
  private async readVolumesOfAttachments(records: ProvisionerRecord[], volumes: Map<string, VolumeRecord>, invalid: Set<string>): Promise<void> {
    const missing = [...new Set(records.flatMap((r) => (r.kind === 'attachment' && !volumes.has(r.volumeId) && !invalid.has(r.volumeId) ? [r.volumeId] : [])))];
    if (missing.length === 0) return;
    for (const raw of await this.deps.store.getMany(missing.map((volumeId) => ({ kind: 'volume' as const, volumeId })))) {
      const parsed = parseRecord(raw);
      if (parsed.ok && parsed.value.kind === 'volume') volumes.set(parsed.value.volumeId, parsed.value);
      else if (!parsed.ok) invalid.add(raw.volumeId);
    }
  }

  /**
   * The EC2 buckets of the shared budget where a call asked for now would wait for its token:
   * calls deferred in a burst wait in that line without a write, and are not lost. Empty without
   * a shared budget or when it cannot be read (every pending call is then judged as before).
   */
  private async bucketsInLine(): Promise<Set<RateBucket>> {
    const inLine = new Set<RateBucket>();
    const budget = this.deps.rateBudget;
    if (!budget) return inLine;
    const now = this.deps.clock.now();
    try {
      for (const bucket of Object.keys(this.config.accountRateBudgets) as RateBucket[])
        if ((await budget.waitMs(bucket, this.config.accountRateBudgets[bucket], now)) > 0) inLine.add(bucket);
    } catch (error) {
      this.deps.log.warn('could not read the shared rate budget; judging pending calls without it', { error: errorMessage(error) });
      inLine.clear();
    }
    return inLine;
  }

  /** The records of one page that need a nudge, with one DescribeVolumes for all of them. */
  private async pageRequeues(
    records: ProvisionerRecord[],
    volumes: Map<string, VolumeRecord>,
    attachmentsByVolume: Map<string, AttachmentRecord[]>,
    inLine: ReadonlySet<RateBucket>,
  ): Promise<{ key: string; reason: string; operation: QueuedOperation }[]> {
    const now = this.deps.clock.now();
    // The page's volumes, and the volumes of its attachments that EC2 may hold attached (to see
    // detaches made outside, attaches given up on that took after all, and single-attach volumes
    // waited for that were attached outside to the attachment's instance).
    const mayBeAttached = (r: AttachmentRecord) => r.status.state === 'attached' || givenUpWithDevice(r, volumes.get(r.volumeId)) || waitsForVolumeInUse(r, volumes.get(r.volumeId));
    const ids = [
      ...new Set(
        records.flatMap((r) => {
          const ebsVolumeId = r.kind === 'volume' ? r.ebsVolumeId : mayBeAttached(r) ? volumes.get(r.volumeId)?.ebsVolumeId : undefined;
          return ebsVolumeId ? [ebsVolumeId] : [];
        }),
      ),
    ];
    // undefined: EC2 could not be asked this time; the page's EC2 comparisons wait for the next run.
    let described: Map<string, ProviderVolume> | undefined = new Map();
    if (ids.length > 0) {
      try {
        for (const volume of await this.deps.provider.describeVolumes(ids)) described.set(volume.ebsVolumeId, volume);
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        this.deps.log.warn('could not describe volumes; comparing this page with EC2 next time', { code: error.code, error: error.message, volumes: ids.length });
        described = undefined;
      }
    }

    const out: { key: string; reason: string; operation: QueuedOperation }[] = [];
    for (const record of records) {
      const why = this.whyRequeue(record, now, described, volumes, attachmentsByVolume, inLine);
      if (why) out.push(typeof why === 'string' ? nudge(record, why) : nudge(record, why.reason, why.op));
    }
    return out;
  }

  private whyRequeue(
    record: ProvisionerRecord,
    now: number,
    described: Map<string, ProviderVolume> | undefined,
    volumes: Map<string, VolumeRecord>,
    attachmentsByVolume: Map<string, AttachmentRecord[]>,
    inLine: ReadonlySet<RateBucket>,
  ): string | { reason: string; op: OperationKind } | undefined {
    const status = record.status;
    if (record.claim && record.claim.expiresAt > now) return undefined; // someone is on it
    const updatedAt = Date.parse(status.updatedAt);
    const quietFor = Number.isNaN(updatedAt) ? Infinity : now - updatedAt;
    if (quietFor < this.overdueAfterMs) return undefined;

    const nextAttemptAt = status.nextAttemptAt === undefined ? Number.NaN : Date.parse(status.nextAttemptAt);
    // A next attempt is scheduled (a backoff, a modification waiting for EC2's 24-hour limit): until it is
    // overdue its message is not lost, and a nudge would only make the call early.
    const scheduled = !Number.isNaN(nextAttemptAt);
    // What the record needs now, worked out once and only when asked.
    let plan: Decision | undefined;
    const planned = (): Decision =>
      (plan ??= record.kind === 'volume' ? planVolume(record, attachmentsByVolume.get(record.volumeId) ?? [], now) : planAttachment(record, volumes.get(record.volumeId)));
    // Overdue, unless its call waits in line for its bucket's tokens (the attempt's message came and
    // was deferred with its token taken, no status write: it holds its place), or it is in error with
    // nothing to do (it waits for its client's retry: no attempt is coming, and a look writes nothing).
    if (scheduled && now - nextAttemptAt >= this.overdueAfterMs) {
      const decision = planned();
      const settledInError = status.state === 'error' && decision.type === 'none';
      // A call in line holds a token at most the reservation horizon ahead of its deferral: overdue by
      // more than that, no message of its own can still be waiting for it (it was lost), however long
      // the line other calls keep. Without a line the nudge, a look, takes a token usable at once.
      const lineMayHoldIt = now - nextAttemptAt < this.overdueAfterMs + this.config.tokenReservationHorizonMs;
      const waitingInLine = this.waitingInLine(decision, record, inLine);
      if (!settledInError && !(lineMayHoldIt && waitingInLine)) {
        const reason = `next attempt was due at ${status.nextAttemptAt}`;
        // Lost while the line lasts: the nudge is the operation, which takes its token at the end of
        // the line as its own message did; a look, taking only one usable at once, would be dropped
        // pass after pass. Passes before its token comes send it again (a token each, no second call).
        return waitingInLine && decision.type === 'operation' ? { reason, op: decision.op } : reason;
      }
    }
    if (UNDER_WAY_STATES.has(status.state) && !scheduled) {
      // A modification may rightly take hours (never given up on while EC2 makes it): a look each pass
      // finds its chain of checks still going, or starts it again if its message was lost, and says so.
      if (status.state === 'modifying') return `modification under way since ${status.operationStartedAt ?? status.updatedAt}; looked at once per pass`;
      // So may a volume made from a large snapshot, or a delete: the pass knows only the state and since when.
      if (status.state === 'creating' || status.state === 'deleting') return `${status.state} since ${status.operationStartedAt ?? status.updatedAt}; looked at once per pass`;
      return `${status.state} with no progress since ${status.updatedAt}`;
    }

    if (record.kind === 'volume') {
      // Its retry brings the executor to it (and a look before then is put off to it), except a wait
      // for EC2's modification limit, which may last hours: a look then records what changed outside.
      if (scheduled && status.code !== MODIFICATION_COOLDOWN_CODE && planned().type === 'operation') return undefined;
      if (described && record.ebsVolumeId && (status.state === 'available' || status.state === 'in-use')) {
        const actual = described.get(record.ebsVolumeId);
        if (!actual) return `EC2 no longer has ${record.ebsVolumeId}`;
        if (actual.state !== status.state) return `EC2 says ${actual.state}, record says ${status.state}`;
        // Modified or retagged outside: a check records what EC2 holds, and the planner puts the spec's back. A dying volume's no longer matter.
        const drift = record.life === 'alive' ? (configurationDrift(record, actual) ?? tagDrift(record, actual.tags)) : undefined;
        if (drift) return drift;
      }
      if (scheduled) return undefined;
      const decision = planned();
      if (decision.type === 'operation' || decision.type === 'remove' || decision.type === 'cascade-dying') {
        return this.waitingInLine(decision, record, inLine) ? undefined : `work pending (${decision.reason})`;
      }
      // The watcher records without a call a spec change EC2 already holds, and shows why one EBS
      // cannot make is not carried out: a change it never saw (a stream batch given up) has a check record it.
      if (decision.type === 'none' && decision.observedGeneration !== undefined && decision.observedGeneration !== record.observedGeneration)
        return `EC2 already holds the spec of generation ${decision.observedGeneration}; observedGeneration is ${record.observedGeneration ?? 'unset'}`;
      if (decision.type === 'invalid-spec' && status.code !== SPEC_REJECTED_CODE) return `the spec cannot be made, and the status does not say why: ${decision.reason}`;
      return undefined;
    }
    const volume = volumes.get(record.volumeId);
    if (described && status.state === 'attached' && volume?.ebsVolumeId) {
      const actual = described.get(volume.ebsVolumeId);
      if (!actual) return `EC2 no longer has ${volume.ebsVolumeId}`;
      const link = actual.attachments.find((a) => a.instanceId === record.instanceId);
      if (!link || link.state === 'detached') return `EC2 shows ${volume.ebsVolumeId} not attached to ${record.instanceId}`;
      if ((link.state === 'attached' || link.state === 'busy') && link.device !== '' && link.device !== record.device)
        return `EC2 shows ${volume.ebsVolumeId} attached to ${record.instanceId} as ${link.device}, the record says ${record.device}`;
    }
    if (described && givenUpWithDevice(record, volume) && volume?.ebsVolumeId) {
      // Its look right after giving up found EC2 still at it (or never came): the status says what EC2 holds once it is done.
      const link = described.get(volume.ebsVolumeId)?.attachments.find((a) => a.instanceId === record.instanceId);
      if (link?.state === 'attached' || link?.state === 'busy') return `EC2 shows ${volume.ebsVolumeId} attached to ${record.instanceId}, which the attachment gave up on`;
      if (!link || link.state === 'detached') return `EC2 shows ${volume.ebsVolumeId} not attached to ${record.instanceId}; the attachment keeps device ${record.device}`;
    }
    if (described && waitsForVolumeInUse(record, volume) && volume.ebsVolumeId) {
      // Its volume moved outside to its instance: nothing else looks (the wait ends only once the volume is detached), a check records the attach.
      const link = described.get(volume.ebsVolumeId)?.attachments.find((a) => a.instanceId === record.instanceId);
      if (link?.state === 'attached' || link?.state === 'busy') return `EC2 shows ${volume.ebsVolumeId} attached to ${record.instanceId}, which the attachment waits to attach`;
    }
    if (scheduled) return undefined;
    const decision = planned();
    if (decision.type === 'operation' || decision.type === 'remove')
      return this.waitingInLine(decision, record, inLine) ? undefined : `work pending (${decision.reason})`;
    // It waits, but its status no longer says for what: the volume's change that would have said so
    // never reached the watcher (a stream batch given up). A look writes the wait, with no EC2 call
    // (but one DescribeVolumes when its single-attach volume is in use: is it attached here?).
    if (decision.type === 'wait' && changesWithoutCall(record, decision, now) !== undefined) return `its status does not say what it waits for now: ${decision.reason}`;
    // Its volume record's removal never reached the watcher (a stream batch given up): a check has the executor say so.
    if (decision.type === 'volume-record-removed' && status.code !== VOLUME_RECORD_REMOVED_CODE)
      return `volume record ${record.volumeId} was removed from the table while this attachment may be attached`;
    return undefined;
  }

  /**
   * Whether a pending EC2 call is presumably waiting in line for its bucket's tokens: while calls
   * have taken tokens ahead, a burst is being served in order, each call's message holding its
   * place, and a nudge would only bring one back behind the line. A message lost in a burst is
   * nudged once the line is gone.
   */
  private waitingInLine(decision: Decision, record: ProvisionerRecord, inLine: ReadonlySet<RateBucket>): boolean {
    const action = decision.type === 'operation' ? firstActionOf(decision.op, record) : undefined;
    return action !== undefined && inLine.has(RATE_BUCKET_OF[action]);
  }

  /**
   * Owned EC2 volumes that no record claims, paging through the provider's listing until `until`.
   * After a partial scan a volume's record may be in a segment not reached: each is judged by the
   * record its tag names (`stillUnowned`), a bulk read per page's worth.
   */
  private async findLeaks(volumes: Map<string, VolumeRecord>, scanComplete: boolean, until: number): Promise<LeakCheck> {
    // The records naming each EC2 volume. One copied in the table from another record names that
    // one's volume without holding it (the executor does nothing to it for the copy).
    const namedBy = new Map<string, string[]>();
    for (const record of volumes.values()) {
      if (!record.ebsVolumeId) continue;
      const names = namedBy.get(record.ebsVolumeId);
      if (names) names.push(record.volumeId);
      else namedBy.set(record.ebsVolumeId, [record.volumeId]);
    }
    const held = (volume: ProviderVolume) => namedBy.get(volume.ebsVolumeId)?.some((volumeId) => ownedByAnotherRecord({ volumeId }, volume) === undefined) === true;
    const check: LeakCheck = { leaked: [], listed: false, volumes: 0, failed: false, unjudged: [] };
    let candidates: ProviderVolume[] = [];
    let cursor: string | undefined;
    do {
      if (this.deps.clock.now() >= until) break;
      let page: Page<ProviderVolume>;
      try {
        page = await this.deps.provider.listOwnedVolumes({ limit: this.pageSize, ...(cursor ? { cursor } : {}) });
      } catch (error) {
        // EC2 could not list them this time (throttled, a fault): the check is left unfinished (no
        // count published), the pass's work kept. Anything else (a permission lost) fails the pass,
        // so its alarms say so rather than a warning each pass.
        if (!(error instanceof ProviderError) || (error.kind !== 'throttled' && error.kind !== 'transient')) throw error;
        this.deps.log.warn('could not list owned volumes; the leak check waits for the next pass', { code: error.code, error: error.message, listedSoFar: check.volumes });
        check.failed = true;
        break;
      }
      cursor = page.cursor;
      check.volumes += page.items.length;
      if (!cursor) check.listed = true;
      for (const volume of page.items) {
        if (held(volume) || volume.state === 'deleting' || volume.state === 'deleted') continue;
        const recordId = volume.tags[OWNERSHIP_TAGS.record];
        const record = volumes.get(recordId ?? '');
        // A record whose CreateVolume went unanswered does not know its EC2 id yet (whatever its state): the executor learns it by repeating the request.
        if (record && createUnanswered(record)) continue;
        // Naming no record to read, it could belong to one in a segment not scanned.
        if (!scanComplete && !recordId) check.unjudged.push(volume.ebsVolumeId);
        else candidates.push(volume);
      }
      if (candidates.length >= this.pageSize) {
        check.leaked.push(...(await this.stillThere(await this.stillUnowned(candidates), until)));
        candidates = [];
      }
    } while (cursor);
    check.leaked.push(...(await this.stillThere(await this.stillUnowned(candidates), until)));
    return check;
  }

  /**
   * Of the volumes no record owns, those EC2 still holds: a volume listed pages before its record
   * was read may have been deleted since, with its record (a record written after the scan passed
   * its key, created and deleted while the listing went on). One DescribeVolumes of those alone,
   * as EC2 holds them now; when EC2 cannot be asked, or the wrap-up's time has come (`until`), they are judged as listed.
   */
  private async stillThere(unowned: ProviderVolume[], until: number): Promise<ProviderVolume[]> {
    if (unowned.length === 0 || this.deps.clock.now() >= until) return unowned;
    let held: Map<string, ProviderVolume>;
    try {
      held = new Map((await this.deps.provider.describeVolumes(unowned.map((volume) => volume.ebsVolumeId))).map((volume) => [volume.ebsVolumeId, volume]));
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      return unowned;
    }
    return unowned.flatMap((volume) => {
      const current = held.get(volume.ebsVolumeId);
      return current && current.state !== 'deleting' && current.state !== 'deleted' ? [current] : [];
    });
  }

  /**
   * Of the volumes the scan found no record for, those no record owns now either: a record written
   * after the scan passed its key (and its volume created since) is not a leak, nor is a volume
   * whose record exists but is invalid (that record is counted as invalid, and says why in its
   * status; its volume is not no one's). One bulk read (a BatchGetItem per 100 keys).
   */
  private async stillUnowned(candidates: ProviderVolume[]): Promise<ProviderVolume[]> {
    const recordIds = [...new Set(candidates.flatMap((volume) => volume.tags[OWNERSHIP_TAGS.record] ?? []))];
    const ownedVolumes = new Set<string>();
    const claimingRecords = new Set<string>();
    if (recordIds.length > 0) {
      for (const raw of await this.deps.store.getMany(recordIds.map((volumeId) => ({ kind: 'volume' as const, volumeId })))) {
        const parsed = parseRecord(raw);
        if (!parsed.ok) claimingRecords.add((raw as { volumeId: string }).volumeId);
        else if (parsed.value.kind !== 'volume') continue;
        else if (parsed.value.ebsVolumeId) ownedVolumes.add(parsed.value.ebsVolumeId);
        else if (createUnanswered(parsed.value)) claimingRecords.add(parsed.value.volumeId);
      }
    }
    return candidates.filter((volume) => !ownedVolumes.has(volume.ebsVolumeId) && !claimingRecords.has(volume.tags[OWNERSHIP_TAGS.record] ?? ''));
  }
}

/** The reconciler's look at `record`, for the reason given: a check, or `op` (the operation whose message was lost in a line for tokens). */
function nudge(record: ProvisionerRecord, reason: string, op?: OperationKind): { key: string; reason: string; operation: QueuedOperation } {
  const key = keyOf(record);
  return {
    key: keyString(key),
    reason,
    operation: { message: { op: op ?? (record.kind === 'volume' ? 'check-volume' : 'check-attachment'), key, nudge: true, reason: `reconciler: ${reason}` }, delaySeconds: 0 },
  };
}
