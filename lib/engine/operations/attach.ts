/**
 * AttachVolume for a batch's attaches: the prerequisites (the volume is the record's own, the
 * instance found, running, in its AZ), device names allocated across the batch from what each
 * instance and its attachment records hold, the device written before the call, and the call.
 */
import type { AttachmentRecord } from '../../domain/records.js';
import { nextAttachmentState } from '../../domain/state-machines.js';
import { allocateDevices, type DeviceRequest } from '../devices.js';
import type { ClassifiedError } from '../errors.js';
import { attachPrerequisites } from '../planner.js';
import type { ProviderVolume } from '../ports.js';
import { attemptStatus, continuedStatus } from '../status.js';
import type { ExecutorContext } from '../execution/context.js';
import type { Item } from '../execution/item.js';
import { volumeCheck } from '../execution/follow-ups.js';
import { stepFailed, attachmentTerminal, attachmentFailure } from '../execution/results.js';
import { notOwnedCode, anotherRecordsVolume, volumeOwnership } from '../execution/ownership.js';
import { call, preWrite } from '../execution/calls.js';
import type { InstanceView } from '../execution/describe.js';

export async function prepareAttaches(
  ctx: ExecutorContext,
  items: Item[],
  owner: string,
  now: number,
  instances: Map<string, InstanceView> | ClassifiedError,
  volumes: Map<string, ProviderVolume> | ClassifiedError,
) {
  const ready: { item: Item; instance: InstanceView }[] = [];
  for (const item of items) {
    try {
      const attachment = item.record as AttachmentRecord;
      const volume = item.volume!;
      if (!(instances instanceof Map)) {
        item.result = attachmentFailure(ctx, attachment, now, 'Describe', instances);
        continue;
      }
      const ownership = volumeOwnership(ctx, volume, volumes);
      if (ownership.kind === 'unknown') {
        item.result = attachmentFailure(ctx, attachment, now, 'Describe', ownership.error);
        continue;
      }
      if (ownership.kind === 'another') {
        item.result = attachmentTerminal(ctx, attachment, now, notOwnedCode(ownership.owner), anotherRecordsVolume(volume, ownership.owner, ctx.config.ownerTagValue), true);
        continue;
      }
      const instance = instances.get(attachment.instanceId);
      const prerequisite = attachPrerequisites(volume, instance, attachment.instanceId);
      if (!prerequisite.ok) {
        // Judged on another environment's description (which the cache does not hold): the retry describes the instance afresh before giving up.
        item.result = attachmentFailure(ctx, attachment, now, 'AttachVolume', {
          outcome: prerequisite.terminal && !instance?.shared ? 'terminal' : 'wait-for-prerequisite',
          code: prerequisite.code,
          message: prerequisite.message,
        });
        continue;
      }
      // Prerequisites hold only for an instance that was found.
      ready.push({ item, instance: instance! });
    } catch (error) {
      stepFailed(ctx, item, error);
    }
  }
  const requests: DeviceRequest[] = ready.map(({ item, instance }) => {
    const attachment = item.record as AttachmentRecord;
    const waiting = instance.awaitingDevice;
    // One the instance's records do not show yet (the index lags a new record) comes after those they do.
    const rank = waiting === undefined ? undefined : waiting.includes(attachment.volumeId) ? waiting.indexOf(attachment.volumeId) : waiting.length;
    return { id: item.id, instanceId: attachment.instanceId, requestedDevice: attachment.requestedDevice, ...(rank !== undefined ? { rank } : {}) };
  });
  const used = new Map<string, string[]>();
  const reserved = new Map<string, string[]>();
  if (instances instanceof Map)
    for (const [id, instance] of instances) {
      used.set(id, instance.deviceNames);
      reserved.set(id, instance.askedFor ?? []);
    }
  const devices = allocateDevices(requests, used, ctx.config.deviceNames, reserved);

  const runs: { item: Item; run: () => Promise<void> }[] = [];
  await Promise.all(
    ready.map(async ({ item, instance }) => {
      try {
        const attachment = item.record as AttachmentRecord;
        const allocation = devices.get(item.id)!;
        if (!allocation.ok) {
          item.result = attachmentFailure(ctx, attachment, now, 'AttachVolume', { outcome: 'retry', code: allocation.code, message: allocation.message });
          return;
        }
        const seen = instance.seen;
        const written = await preWrite<AttachmentRecord>(ctx, item, owner, now, {
          status: attemptStatus(attachment.status, nextAttachmentState(attachment.status.state, 'attach-started'), now, `attaching as ${allocation.device}`),
          device: allocation.device,
          ...(seen ? { instanceSeen: seen } : {}),
          volumeCreatedAt: item.volume!.createdAt,
        });
        if (!written) return;
        item.record = written;
        runs.push({ item, run: async () => {
          const outcome = await call(ctx, item, 'AttachVolume', () =>
            ctx.deps.provider.attachVolume({ ebsVolumeId: item.volume!.ebsVolumeId!, instanceId: written.instanceId, device: allocation.device }),
          );
          // The device is the record's to hold (written above), not the cache's.
          // The instance may have changed under the cache (state, devices): describe it next time.
          if (!outcome.ok && outcome.error.outcome !== 'throttled') ctx.instanceCache.delete(written.instanceId);
          if (outcome.ok || outcome.error.outcome === 'already-done') {
            item.result = {
              outcome: 'in-progress',
              latencyMs: outcome.latencyMs,
              changes: { status: continuedStatus(written.status, 'attaching', now, `attaching as ${allocation.device}`) },
            };
            return;
          }
          item.result = { ...attachmentFailure(ctx, written, now, 'AttachVolume', outcome.error), latencyMs: outcome.latencyMs };
          // The instance was just described: the volume is what EC2 does not find, or finds in a state no
          // attach takes (`IncorrectState`: EBS failed it). Deleted outside or failed, its record learns it
          // at once (and the attach waits for its retry), rather than the attach spending its attempts.
          if (outcome.error.kind === 'not-found' || outcome.error.code === 'IncorrectState') item.result.alsoCheck = volumeCheck(written);
        } });
      } catch (error) {
        stepFailed(ctx, item, error);
      }
    }),
  );
  return runs;
}
