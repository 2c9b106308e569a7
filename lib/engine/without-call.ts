/**
 * What a decision that calls no EC2 API (`wait`, `cascade-dying`, `invalid-spec`,
 * `volume-record-removed`, `cooldown`, `none`) writes, one rule for the watcher and the executor:
 * each writes it conditionally on the record's version and queues what it queues itself.
 */
import type { AttachmentRecord, ProvisionerRecord, RecordKey, Status, VolumeRecord } from '../domain/records.js';
import { futureStartsAsNow, modificationStartInFuture } from './modification-window.js';
import { modificationNeeded, saysWaitingForAttachments, type Decision } from './planner.js';
import { ConditionFailedError, type RecordChanges, type RecordStore } from './ports.js';
import { cooldownWait, sameStatus, settledStatus, specRejectedStatus, volumeRecordRemovedStatus, waitingOnRecordStatus, waitingStatus } from './status.js';

export type DecisionWithoutCall = Exclude<Decision, { type: 'operation' } | { type: 'remove' }>;

/** Logged as a warning when a volume record's modification starts in the future (bad input) are replaced by now. */
export const FUTURE_MODIFICATION_START_LOG = 'volume record says a modification starts in the future; counting from now';

/** Logged as a warning when an attachment is written to say its volume record was removed (nothing looks after its EC2 volume). */
export const VOLUME_RECORD_REMOVED_LOG = 'volume record removed from the table; its attachment is left as it is';

/**
 * The changes `decision` makes to `record`, or undefined when the record already says it. The
 * status is written only when what it says changes, so its `updatedAt` tells when that was: a
 * spec change EC2 already holds moves `observedGeneration` alone. A wait for EC2's rate limit is
 * shown again by whichever write finds the status no longer showing it; a modification start in
 * the future becomes now (the end the planner counted from now), so the end no longer moves.
 */
export function changesWithoutCall<R extends ProvisionerRecord>(record: R, decision: DecisionWithoutCall, nowMs: number): RecordChanges<R> | undefined {
  const changes: { status?: Status<string> } & Omit<RecordChanges<VolumeRecord>, 'status'> = {};
  const status = statusFor(record, decision, nowMs);
  if (!sameStatus(record.status, status)) changes.status = status;
  if (decision.type === 'none' && decision.observedGeneration !== undefined && record.kind === 'volume' && record.observedGeneration !== decision.observedGeneration)
    changes.observedGeneration = decision.observedGeneration;
  // EC2 holds the spec (its client put it back, say): the modifications EC2 failed no longer count, as when a check sees it held.
  if (
    decision.type === 'none' &&
    record.kind === 'volume' &&
    record.failedModifications !== undefined &&
    (record.status.state === 'available' || record.status.state === 'in-use') &&
    !modificationNeeded(record)
  )
    changes.failedModifications = null;
  if (decision.type === 'cooldown' && record.kind === 'volume' && modificationStartInFuture(record, nowMs)) Object.assign(changes, futureStartsAsNow(record, nowMs));
  return Object.keys(changes).length > 0 ? (changes as RecordChanges<R>) : undefined;
}

function statusFor(record: ProvisionerRecord, decision: DecisionWithoutCall, nowMs: number): Status<string> {
  const status = record.status;
  switch (decision.type) {
    case 'wait':
      return waitingOnRecordStatus(status, nowMs, decision.reason, decision.attemptsEnd);
    case 'cascade-dying':
      return waitingOnRecordStatus(status, nowMs, decision.reason);
    case 'invalid-spec':
      return specRejectedStatus(status, status.state, nowMs, decision.reason);
    case 'cooldown':
      return waitingStatus(status, status.state, nowMs, cooldownWait(decision.atMs));
    case 'volume-record-removed':
      // Only attachments lose their volume record.
      return record.kind === 'attachment' ? volumeRecordRemovedStatus(record.status, nowMs, decision.reason) : status;
    case 'none': {
      // A volume set back to alive (straight in the table) while it waited, dying, for its attachments: that wait no longer holds.
      if (record.kind === 'volume' && saysWaitingForAttachments(status)) {
        const { message: _message, ...rest } = status;
        return settledStatus({ ...rest, updatedAt: new Date(nowMs).toISOString() }, nowMs);
      }
      // A spec the client has since put right: its rejection, or a wait it no longer needs, goes.
      return settledStatus(status, nowMs);
    }
  }
}

/**
 * A dying volume's cascade: its live attachments become dying (one already dying is left as it
 * is), their detaches not forced: a `forceDetach` written while alive goes, as with a plain delete
 * of the attachment. Nothing is queued here: each attachment's own change comes back through the
 * stream and the watcher plans its detach from there, once.
 */
export async function markAttachmentsDying(store: RecordStore, attachments: readonly RecordKey[]): Promise<void> {
  for (const key of attachments) {
    try {
      await store.update<AttachmentRecord>(key, { life: 'dying', forceDetach: null }, { life: 'alive' });
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
    }
  }
}
