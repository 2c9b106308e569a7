/**
 * DetachVolume: of the attachment's volume (forced when its client asks, that one call recorded
 * before it is made), or, when its volume record was removed, of every EC2 volume tagged with its
 * volume id that EC2 shows attached to its instance (`prepareOrphanDetach`).
 */
import type { AttachmentRecord } from '../../domain/records.js';
import { nextAttachmentState } from '../../domain/state-machines.js';
import { METRICS } from '../../settings.js';
import type { ClassifiedError } from '../errors.js';
import { detachesByTags } from '../planner.js';
import type { ProviderVolume } from '../ports.js';
import { acceptedAgainStatus, ATTACHMENT_NOT_DETACHED_CODE } from '../status.js';
import type { ExecutorContext } from '../execution/context.js';
import type { Item } from '../execution/item.js';
import { volumeCheck } from '../execution/follow-ups.js';
import { attachmentFailure } from '../execution/results.js';
import { volumeOwnership } from '../execution/ownership.js';
import { attachedTo } from '../execution/checks.js';
import { call, preWrite } from '../execution/calls.js';

export function prepareDetach(ctx: ExecutorContext, item: Item, owner: string, now: number, volumes: Map<string, ProviderVolume> | ClassifiedError): (() => Promise<void>) | undefined {
  const attachment = item.record as AttachmentRecord;
  if (!item.volume || detachesByTags(attachment, item.volume)) return prepareOrphanDetach(ctx, item, now);
  const ebsVolumeId = item.volume.ebsVolumeId;
  if (!ebsVolumeId) {
    // Without an EC2 volume nothing can be attached.
    item.result = { outcome: 'succeeded', remove: true, alsoCheck: volumeCheck(attachment) };
    return undefined;
  }
  const ownership = volumeOwnership(ctx, item.volume, volumes);
  if (ownership.kind === 'unknown') {
    item.result = attachmentFailure(ctx, attachment, now, 'Describe', ownership.error);
    return undefined;
  }
  if (ownership.kind === 'another') {
    // Its volume record names another record's EC2 volume (or one this deployment did not create): detaching it would detach that one.
    ctx.deps.log.warn(
      ownership.owner === undefined
        ? 'attachment of a volume record naming an EC2 volume this deployment did not create; removed without detaching it'
        : 'attachment of a volume record naming the EC2 volume of another record; removed without detaching it',
      { key: item.id, ebsVolumeId, ...(ownership.owner === undefined ? {} : { ownerRecord: ownership.owner }) },
    );
    item.result = { outcome: 'succeeded', remove: true };
    return undefined;
  }
  const force = attachment.forceDetach === true;
  // A detach under way that the client forced since: its one forced call (the planner's `forceDetachSentAt`).
  const started = nextAttachmentState(attachment.status.state, attachment.status.state === 'detaching' ? 'force-detach-started' : 'detach-started');
  return async () => {
    if (force) {
      // Written under the claim before the call: a late or repeated message, or a check after an
      // answer lost with the executor, finds the forced call made and does not send it again.
      const written = await preWrite<AttachmentRecord>(ctx, item, owner, now, { forceDetachSentAt: new Date(now).toISOString() });
      if (!written) return;
      item.record = written;
    }
    // Volume and instance name the attachment; a recorded device EC2 no longer has (the volume
    // attached again outside under another name) would be refused as not attached, read as done.
    const outcome = await call(ctx, item, 'DetachVolume', () =>
      ctx.deps.provider.detachVolume({ ebsVolumeId, instanceId: attachment.instanceId, ...(force ? { force: true } : {}) }),
    );
    if (outcome.ok) {
      item.result = {
        outcome: 'in-progress',
        latencyMs: outcome.latencyMs,
        changes: {
          status: acceptedAgainStatus(attachment.status, started, now, force ? 'detaching (forced)' : 'detaching', ATTACHMENT_NOT_DETACHED_CODE),
          // A forced call recorded for an earlier detach (the record set back to alive since) is not this detach's: forcing it later sends one.
          ...(!force && attachment.forceDetachSentAt !== undefined ? { forceDetachSentAt: null } : {}),
        },
      };
      return;
    }
    if (outcome.error.outcome === 'already-done') {
      // Already detached: the attachment is gone, no progress check needed.
      nextAttachmentState(started, 'observed-detached');
      item.result = { outcome: 'succeeded', latencyMs: outcome.latencyMs, remove: true, alsoCheck: volumeCheck(attachment) };
      return;
    }
    const failed = attachmentFailure(ctx, attachment, now, 'DetachVolume', outcome.error);
    // Failed, for certain or not (EC2 unavailable, a timeout): sent again at its retry, as one
    // that never reached EC2 must be; a second after one that took finds the volume detached.
    if (force) failed.changes = { ...failed.changes, forceDetachSentAt: null };
    item.result = { ...failed, latencyMs: outcome.latencyMs };
  };
}

/**
 * The detach of an attachment whose volume record was removed from the table: every EC2 volume
 * tagged with its volume id that EC2 shows attached to its instance is detached (no live record
 * claims any of them). None: nothing is attached, the record goes at once. One EC2 already
 * detaches needs no call; a failed call retries the whole, which finds the others detaching.
 */
function prepareOrphanDetach(ctx: ExecutorContext, item: Item, now: number): (() => Promise<void>) | undefined {
  const attachment = item.record as AttachmentRecord;
  const found = item.orphans ?? [];
  if (!Array.isArray(found)) {
    item.result = attachmentFailure(ctx, attachment, now, 'Describe', found);
    return undefined;
  }
  const attachedHere = found.filter((volume) => attachedTo(volume, attachment.instanceId));
  ctx.deps.log.info('volume record removed from the table; found its EC2 volumes by their tags', {
    key: item.id,
    found: found.map((volume) => volume.ebsVolumeId),
    attachedHere: attachedHere.map((volume) => volume.ebsVolumeId),
  });
  ctx.deps.metrics.count(METRICS.orphanVolumesFound, attachedHere.length);
  if (attachedHere.length === 0) {
    nextAttachmentState(nextAttachmentState(attachment.status.state, 'detach-started'), 'observed-detached');
    item.result = { outcome: 'succeeded', remove: true };
    return undefined;
  }
  const toDetach = attachedHere.filter((volume) => volume.attachments.some((a) => a.instanceId === attachment.instanceId && a.state !== 'detaching'));
  return async () => {
    // Some already detaching: under way without a call.
    let started = toDetach.length < attachedHere.length;
    let latencyMs = 0;
    let failure: ClassifiedError | undefined;
    for (const volume of toDetach) {
      const outcome = await call(ctx, item, 'DetachVolume', () =>
        ctx.deps.provider.detachVolume({ ebsVolumeId: volume.ebsVolumeId, instanceId: attachment.instanceId }),
      );
      latencyMs += outcome.latencyMs;
      if (outcome.ok) {
        started = true;
        ctx.deps.log.info('detaching an EC2 volume of a removed volume record', { key: item.id, ebsVolumeId: volume.ebsVolumeId });
      } else if (outcome.error.outcome !== 'already-done') failure ??= outcome.error;
    }
    if (failure) {
      item.result = { ...attachmentFailure(ctx, attachment, now, 'DetachVolume', failure), latencyMs };
      return;
    }
    const detaching = nextAttachmentState(attachment.status.state, 'detach-started');
    if (!started) {
      // Every one detached meanwhile: nothing left attached.
      nextAttachmentState(detaching, 'observed-detached');
      item.result = { outcome: 'succeeded', latencyMs, remove: true };
      return;
    }
    item.result = { outcome: 'in-progress', latencyMs, changes: { status: acceptedAgainStatus(attachment.status, detaching, now, 'detaching', ATTACHMENT_NOT_DETACHED_CODE) } };
  };
}
