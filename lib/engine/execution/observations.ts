/**
 * Writing what a progress check saw (`writeObservation`): only a change, on the condition that the
 * record is still the version read, and an attachment's volume record brought in line beside it
 * (`syncVolume`); the next check of a chain whose write found the record changed; and a record
 * read back from the table, parsed before anything acts on it (`trusted`).
 */
import { keyOf, keyString, type ProvisionerRecord, type RecordKey, type Status, type VolumeRecord, type VolumeState } from '../../domain/records.js';
import { canonicalJson, sameJson } from '../../domain/canonical-json.js';
import { parseRecord } from '../../domain/validation.js';
import { METRICS } from '../../settings.js';
import { errorMessage } from '../errors.js';
import { planVolume } from '../planner.js';
import { pendingRetryAtMs } from '../status.js';
import { ConditionFailedError, type OperationKind, type ProviderVolume, type QueuedOperation, type RecordChanges, unchangedSince } from '../ports.js';
import type { ExecutorContext } from './context.js';
import type { Result, Item } from './item.js';
import { IN_PROGRESS, chained, alsoChecks, messageAt, followUp, waitShownBy, resendLaterCopy, stepMessage } from './follow-ups.js';
import { observedChanges, volumeInLineByCheck } from './checks.js';

/**
 * Whether writing `changes` would change what `record` says, beyond the status's timestamps:
 * a check that saw an operation still under way writes nothing.
 */
function changesSomething(record: ProvisionerRecord, changes: NonNullable<Result['changes']>): boolean {
  // A start the status lacks is written (a status written straight into the table, say): without
  // it the checks never age, so the operation would be looked at every few seconds without end.
  const comparable = (status: Status<string>) => canonicalJson({ ...status, updatedAt: '', operationStartedAt: status.operationStartedAt === undefined ? undefined : '' });
  const current = record as unknown as Record<string, unknown>;
  for (const [field, value] of Object.entries(changes as Record<string, unknown>)) {
    if (value === undefined) continue;
    if (field === 'status') {
      if (comparable(value as Status<string>) !== comparable(record.status)) return true;
      continue;
    }
    if (value === null ? current[field] !== undefined : !sameJson(value, current[field])) return true;
  }
  return false;
}

export function trusted(ctx: ExecutorContext, raw: ProvisionerRecord): ProvisionerRecord | undefined {
  const parsed = parseRecord(raw);
  if (parsed.ok) return parsed.value;
  ctx.deps.log.warn('invalid record; not acting on it', { key: keyString(keyOf(raw)), issues: parsed.issues });
  return undefined;
}

/**
 * OperationsFailed, once the error status is written: a write refused (the record deleted or
 * changed meanwhile) or lost and retried leaves no record in error, or counts it on the retry.
 * Logged with the record's key: an attachment in error shows in no list of volumes in error.
 */
export function countFailure(ctx: ExecutorContext, item: Item, op: OperationKind, result: Result): void {
  if (result.outcome !== 'failed') return;
  ctx.deps.metrics.count(METRICS.failed);
  const { code, message } = item.record!.status;
  ctx.deps.log.warn('operation failed', { key: item.id, op, ...(code !== undefined ? { code } : {}), ...(message !== undefined ? { error: message } : {}) });
}

/**
 * Writes what a progress check saw, only if it changed something, on the condition that the
 * record is still the version that was read; then plans the next check from it.
 */
export async function writeObservation(ctx: ExecutorContext, item: Item, result: Result, now: number, followUps: { item: Item; operation: QueuedOperation }[]) {
  const record = item.record!;
  const op = item.decision?.type === 'operation' ? item.decision.op : item.hint;
  const condition = unchangedSince(record);
  try {
    // The volume first: when the attachment's removal replans a dying volume, it is already available.
    const volumeSynced = result.volumeSeen !== undefined && (await syncVolume(ctx, item, result.volumeSeen, now, followUps));
    if (result.remove) {
      await ctx.deps.store.remove(item.key, condition);
      ctx.deps.log.info('record removed', { key: item.id, op });
    } else {
      let current = record;
      if (result.changes && changesSomething(record, result.changes)) {
        current = await ctx.deps.store.update(item.key, result.changes as RecordChanges, condition);
        item.record = current;
        countFailure(ctx, item, op, result);
      }
      // A look (the reconciler's, the watcher's) at an operation still under way leaves the checking to the operation's own chain.
      const next = item.nudgeOnly && result.outcome === 'in-progress' ? undefined : followUp(ctx, item, record, current, result, now);
      if (next) followUps.push({ item, operation: next });
    }
    // The volume's check is needed only when its record could not be brought in line here.
    for (const operation of alsoChecks(item, result)) if (!volumeSynced || operation.message.key.kind !== 'volume') followUps.push({ item, operation });
  } catch (error) {
    if (error instanceof ConditionFailedError) {
      // Changed or deleted meanwhile: that change is planned on its own, unless it left the
      // operation under way (`chainGoesOn`). A copy due later that this check consumed (a wait's
      // message) is planned by nothing else: it comes back when due.
      ctx.deps.log.info('observation not written; record changed meanwhile', { key: item.id, op });
      const next = chainGoesOn(ctx, item, result, error.current, now);
      if (next) followUps.push({ item, operation: next });
      resendLaterCopy(ctx, item, now, now, followUps);
      return;
    }
    ctx.deps.log.error('status write failed', { key: item.id, op, error: errorMessage(error) });
    item.infraFailed = true;
  }
}

/**
 * The next check of an operation's chain whose observation found the record changed meanwhile
 * with the same operation still under way, unclaimed: a client's change of its spec or tags, or a
 * look's status write. A look schedules no check of an operation still under way (the watcher's
 * message for a client change of a record under way is one, as the reconciler's are, so that
 * client changes do not start chains beside it), so the chain goes on: on its schedule when it
 * saw the operation still under way, else at once (or when its retry is due), to see again on
 * the record as it is now what it saw. Undefined when the item was only a look, when the record
 * is gone or moved on (its writer planned what follows), or held by another invocation (which
 * does).
 */
function chainGoesOn(ctx: ExecutorContext, item: Item, result: Result, raw: ProvisionerRecord | undefined, now: number): QueuedOperation | undefined {
  const read = item.record!;
  const current = raw && trusted(ctx, raw);
  if (item.nudgeOnly || !current || !IN_PROGRESS[read.status.state] || item.decision?.type !== 'operation') return undefined;
  if (current.status.state !== read.status.state || current.status.operationStartedAt !== read.status.operationStartedAt) return undefined;
  if (current.status.nextAttemptAt !== undefined || (current.claim && current.claim.expiresAt > now)) return undefined;
  if (result.outcome === 'in-progress') return followUp(ctx, item, read, current, result, now);
  return chained(messageAt(ctx, item.decision.op, item.key, 'the record changed while it was checked; looking again', now, result.retryAtMs ?? now), current);
}

/**
 * Brings an attachment's volume record in line with the EC2 state this batch described, on the
 * condition that the record is still the version read and at rest (available or in use, no
 * operation under way), and EC2 lists the volume so too: the same write a check of the volume would make, without its own
 * DescribeVolumes. False when the volume must be checked after all. A wait for EC2's modification limit
 * stays in the volume's status (`observedChanges` writes it along).
 */
async function syncVolume(ctx: ExecutorContext, item: Item, current: ProviderVolume, now: number, followUps: { item: Item; operation: QueuedOperation }[]): Promise<boolean> {
  const volume = item.volume;
  if (!volume || !volumeInLineByCheck(volume, current, now)) return false;
  const changes = observedChanges(volume, current, now);
  // A look for an attachment is no step of the volume's own operation: a run of its failed
  // attempts (a ModifyVolume EC2 keeps failing, its retry due) stays, state aside, so the budget still ends it.
  const seen = changes.status as Status<VolumeState>;
  if (volume.status.attempts > 0 && seen.code === undefined) changes.status = { ...volume.status, state: seen.state, updatedAt: seen.updatedAt };
  if (!changesSomething(volume, changes)) return true;
  const key: RecordKey = { kind: 'volume', volumeId: volume.volumeId };
  try {
    item.volume = await ctx.deps.store.update<VolumeRecord>(key, changes, unchangedSince(volume));
    const next = afterVolumeSync(ctx, volume, item.volume, now);
    if (next) followUps.push({ item, operation: next });
    return true;
  } catch (error) {
    if (!(error instanceof ConditionFailedError))
      ctx.deps.log.warn('volume status write failed; checking the volume instead', { key: keyString(key), error: errorMessage(error) });
    return false;
  }
}

/**
 * What a live volume's record, brought in line by an attachment's check (`before` → `written`),
 * needs next: the watcher does not plan on the system's writes, so this check does what the
 * volume's own would (`stepMessage`, as `followUp` after a check of the volume): a wait for EC2's
 * modification limit the write put in the status brings the modification back when it ends, and
 * what EC2 holds found changed outside (client tags, size, type, IOPS or throughput) gets the step
 * the volume's plan names on it at once: the tags put back, a modification back to the spec. Not
 * a step this write did not make needed (one the client asked for has its message already), nor
 * one before a failed attempt's retry is due (that retry makes it, and a look at the volume waits
 * for it too: `retryNotDue`); a grow the spec cannot follow needs none (the status says why).
 */
function afterVolumeSync(ctx: ExecutorContext, before: VolumeRecord, written: VolumeRecord, now: number): QueuedOperation | undefined {
  if (written.life !== 'alive') return undefined;
  const decision = planVolume(written, [], now);
  if (decision.type === 'cooldown') return waitShownBy(ctx, before, written, decision, now);
  if (decision.type !== 'operation' || sameJson(before.observed ?? null, written.observed ?? null)) return undefined;
  if (pendingRetryAtMs(written.status, now) !== undefined) return undefined;
  return stepMessage(ctx, written, decision, now);
}
