/**
 * ModifyVolume toward the spec: a modification EC2 already makes is followed (`adoptModification`)
 * or waited for (`awaitModification`), one whose answer was lost is looked for before another is
 * sent, and a refusal for EC2's modification limit waits out the window (`awaitCooldown`).
 */
import type { Status, VolumeRecord, VolumeState } from '../../domain/records.js';
import { nextVolumeState } from '../../domain/state-machines.js';
import type { ClassifiedError } from '../errors.js';
import { modificationNeeded, modificationReaches } from '../planner.js';
import type { ModificationState, ProviderModification, ProviderVolume, RecordChanges } from '../ports.js';
import { progressDelaySeconds } from '../schedule.js';
import { cooldownWait, EC2_TIME_SLACK_MS, successStatus, waitingStatus } from '../status.js';
import { learntModificationStart, modificationStarted, modificationsStartedBy, recordedModificationStarts, windowEndAfter, withStarts } from '../modification-window.js';
import type { ExecutorContext } from '../execution/context.js';
import type { Result, Item } from '../execution/item.js';
import { volumeFailure } from '../execution/results.js';
import { observedOf, observedChanges, volumeVanished, describedVolume } from '../execution/checks.js';
import { call, preWrite } from '../execution/calls.js';

/** Modification states in which EC2 refuses another ModifyVolume of the volume. */
const MODIFICATION_UNDER_WAY: ReadonlySet<ModificationState> = new Set(['modifying', 'optimizing']);

/** What a modification changes the volume to, for people: `30 GiB, gp3, 4000 IOPS`. */
function modificationTarget(modification: ProviderModification): string {
  const parts: string[] = [];
  if (modification.targetSizeGiB !== undefined) parts.push(`${modification.targetSizeGiB} GiB`);
  if (modification.targetVolumeType !== undefined) parts.push(modification.targetVolumeType);
  if (modification.targetIops !== undefined) parts.push(`${modification.targetIops} IOPS`);
  if (modification.targetThroughput !== undefined) parts.push(`${modification.targetThroughput} MiB/s`);
  return parts.length > 0 ? parts.join(', ') : 'an unknown target';
}

/** The wait for a modification of the volume under way toward another spec. */
function modificationUnderWayWait(modification: ProviderModification): { code: string; message: string } {
  return {
    code: 'IncorrectModificationState',
    message: `waiting for the modification under way (${modification.state}, to ${modificationTarget(modification)}) to finish before modifying`,
  };
}

/** The volume as EC2 will describe it once `modification` is done. */
function afterModification(volume: ProviderVolume, modification: ProviderModification): ProviderVolume {
  return {
    ...volume,
    sizeGiB: modification.targetSizeGiB ?? volume.sizeGiB,
    volumeType: modification.targetVolumeType ?? volume.volumeType,
    ...(modification.targetIops !== undefined ? { iops: modification.targetIops } : {}),
    ...(modification.targetThroughput !== undefined ? { throughput: modification.targetThroughput } : {}),
  };
}

export function prepareModify(
  ctx: ExecutorContext,
  item: Item,
  owner: string,
  now: number,
  volumes: Map<string, ProviderVolume> | ClassifiedError,
  modifications: Map<string, ProviderModification> | ClassifiedError,
): (() => Promise<void>) | undefined {
  const volume = item.record as VolumeRecord;
  const current = describedVolume(ctx, item, now, volumes);
  if (!current) return undefined;
  const latest = modifications instanceof Map ? modifications.get(current.ebsVolumeId) : undefined;
  // EC2 may already be where the spec wants it (a repeated message after a lost status write).
  const refreshed: VolumeRecord = { ...volume, observed: observedOf(volume, current) };
  const request = modificationNeeded(refreshed);
  if (!request) {
    if (volume.modificationSentAt !== undefined) {
      // A ModifyVolume whose answer was lost may still take EC2 elsewhere: EC2 describes the old
      // values while it is `modifying`, and lists it a little after accepting it.
      if (!(modifications instanceof Map)) {
        item.result = volumeFailure(ctx, volume, now, modifications);
        return undefined;
      }
      if (latest && MODIFICATION_UNDER_WAY.has(latest.state) && modificationNeeded({ ...volume, observed: observedOf(volume, afterModification(current, latest)) })) {
        item.result = awaitModification(ctx, volume, current, now, latest.startedAt, modificationUnderWayWait(latest));
        return undefined;
      }
      const sentAt = Date.parse(volume.modificationSentAt);
      // EC2 dates a modification to the second, by a clock a little off ours.
      if (!(latest?.startedAt !== undefined && latest.startedAt + EC2_TIME_SLACK_MS >= sentAt) && now - sentAt < ctx.config.describeGraceMs) {
        item.result = awaitModification(ctx, volume, current, now, sentAt, { code: 'ModificationUnconfirmed', message: 'looking whether the ModifyVolume whose answer was lost took' });
        return undefined;
      }
    }
    const changes = observedChanges({ ...volume, modificationSentAt: undefined }, current, now);
    // EC2 holds the spec through a modification the record does not know (ours, whose answer was
    // lost, now optimizing or completed): it counts toward EC2's limit. A failed one does not.
    Object.assign(changes, learntModificationStart(volume, latest, now));
    if (volume.modificationSentAt !== undefined) changes.modificationSentAt = null;
    item.result = { outcome: 'succeeded', changes };
    return undefined;
  }
  if (!(modifications instanceof Map)) {
    item.result = volumeFailure(ctx, volume, now, modifications);
    return undefined;
  }
  if (latest && MODIFICATION_UNDER_WAY.has(latest.state)) {
    // Toward this spec: ours, accepted by a ModifyVolume whose answer was lost (or someone else's): follow it.
    item.result = modificationReaches(latest, request)
      ? adoptModification(volume, latest, now)
      : awaitModification(ctx, volume, current, now, latest.startedAt, modificationUnderWayWait(latest));
    return undefined;
  }
  return async () => {
    // Written with the claim before the call: until EC2's answer is recorded, the spec is not
    // taken as held without looking at EC2's modifications (the planner's `modificationSentAt`).
    // An earlier call whose answer was lost keeps its time: it may be the one EC2 is making.
    const earlierUnanswered = volume.modificationSentAt !== undefined;
    const written = await preWrite<VolumeRecord>(ctx, item, owner, now, earlierUnanswered ? {} : { modificationSentAt: new Date(now).toISOString() });
    if (!written) return;
    item.record = written;
    const outcome = await call(ctx, item, 'ModifyVolume', () => ctx.deps.provider.modifyVolume(request));
    if (outcome.ok) {
      item.result = {
        outcome: 'in-progress',
        latencyMs: outcome.latencyMs,
        changes: {
          // Failures of earlier modifications toward this spec are counted on the record (`failedModifications`).
          status: successStatus(volume.status, nextVolumeState(volume.status.state, 'modify-started'), now, 'modifying', true),
          // EC2 started it before it answered: counted from the answer's time, it leaves EC2's window
          // no earlier than EC2 counts. One before it the record did not know (made in the console) counts too.
          ...modificationStarted(withStarts(volume, learntModificationStart(volume, latest, now)), ctx.deps.clock.now(), ctx.deps.clock.now()),
          modificationSentAt: null,
        },
      };
      return;
    }
    const { error } = outcome;
    const result =
      error.outcome === 'wait-for-cooldown'
        ? awaitCooldown(ctx, volume, current, now, latest)
        : error.outcome === 'wait-for-modification'
          ? // Under way although DescribeVolumesModifications did not list it yet: look again soon.
            awaitModification(ctx, volume, current, now, undefined, { code: error.code, message: `waiting for the modification under way to finish: ${error.message}` })
          : error.kind === 'not-found'
            ? // Gone since the describe: forgotten as a check that finds it gone forgets it.
              volumeVanished(volume, 'observed-deleted', now)
            : volumeFailure(ctx, volume, now, error);
    // Refused for certain, with no earlier call unanswered: nothing was sent that could still take.
    // (After one, the refusal may be of its doing, EC2 modifying the volume already.)
    if (!error.uncertain && !earlierUnanswered) result.changes = { ...result.changes, modificationSentAt: null };
    item.result = { ...result, latencyMs: outcome.latencyMs };
  };
}

/**
 * A modification toward the spec is under way in EC2 (ours, whose ModifyVolume answer was
 * lost): the record follows it as its own, from when EC2 started it, with no new call.
 */
function adoptModification(volume: VolumeRecord, modification: ProviderModification, now: number): Result {
  const status = successStatus(volume.status, nextVolumeState(volume.status.state, 'modify-started'), now, 'modifying (EC2 had already accepted this change)', true);
  const startedAtMs = Math.min(modification.startedAt ?? now, now);
  status.operationStartedAt = new Date(startedAtMs).toISOString();
  return {
    outcome: 'in-progress',
    changes: { status, ...modificationStarted(volume, startedAtMs, now, true), ...(volume.modificationSentAt !== undefined ? { modificationSentAt: null } : {}) },
  };
}

/**
 * Another modification of the volume is under way: look again when a check of it would, and
 * modify once it is done. No attempt used: a modification always ends.
 */
function awaitModification(
  ctx: ExecutorContext,
  volume: VolumeRecord,
  current: ProviderVolume,
  now: number,
  startedAt: number | undefined,
  wait: { code: string; message: string },
): Result {
  const atMs = now + progressDelaySeconds('modify-volume', now - (startedAt ?? now), ctx.config) * 1000;
  return {
    outcome: 'retrying',
    retryAtMs: atMs,
    changes: waitingChanges(volume, current, now, { ...wait, nextAttemptAtMs: atMs }),
  };
}

/**
 * EC2 refused the modification for its rate limit (4 per volume in any 24 hours), counting
 * modifications the record may not know (made in the console, say): every one it counts started
 * by the latest start DescribeVolumesModifications names (or the record knows, if later), so a
 * window from that start is certainly enough. The record holds that (`modificationsStartedBy`),
 * so the planner alone keeps the wait, and the call comes back when it ends. No attempt used, and
 * the wait is no part of the operation's age.
 */
function awaitCooldown(ctx: ExecutorContext, volume: VolumeRecord, current: ProviderVolume, now: number, latest: ProviderModification | undefined): Result {
  const refusedAt = ctx.deps.clock.now();
  const listed = latest?.startedAt === undefined ? undefined : Math.min(latest.startedAt, refusedAt);
  // A later one the record knows that EC2 does not list yet (it lists a modification a little after accepting it).
  const known = recordedModificationStarts(volume, refusedAt).at(-1);
  const named = listed === undefined || known === undefined ? listed : Math.max(listed, known);
  // No start named, or one whose window is over (EC2's clock or count differs from ours): every
  // modification EC2 counts started by the refusal, so a window from it is certainly enough.
  const startedBy = named !== undefined && windowEndAfter(named) > refusedAt ? Math.min(named, refusedAt) : refusedAt;
  const atMs = windowEndAfter(startedBy);
  return { outcome: 'retrying', retryAtMs: atMs, changes: { ...waitingChanges(volume, current, now, cooldownWait(atMs)), ...modificationsStartedBy(startedBy) } };
}

/** A volume at rest waiting for EC2 to allow its modification: its state and observed values as EC2 reports them, the wait as its status. */
function waitingChanges(
  volume: VolumeRecord,
  current: ProviderVolume,
  now: number,
  wait: { code: string; message: string; nextAttemptAtMs: number },
): RecordChanges<VolumeRecord> {
  const seen = observedChanges(volume, current, now);
  return { ...seen, status: waitingStatus(volume.status, (seen.status as Status<VolumeState>).state, now, wait) };
}
