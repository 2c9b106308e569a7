/**
 * DeleteVolume of a dying volume record's EC2 volume, only when the volume is the record's own; a
 * refusal for a volume in use with no record attached looks at EC2 to say where it is attached.
 */
import type { VolumeRecord } from '../../domain/records.js';
import { nextVolumeState } from '../../domain/state-machines.js';
import type { ClassifiedError } from '../errors.js';
import type { ProviderVolume } from '../ports.js';
import { acceptedAgainStatus, VOLUME_NOT_DELETED_CODE } from '../status.js';
import type { ExecutorContext } from '../execution/context.js';
import type { Item } from '../execution/item.js';
import { attachedOutside, volumeFailure } from '../execution/results.js';
import { volumeOwnership, volumeOfAnotherRecord } from '../execution/ownership.js';
import { call } from '../execution/calls.js';
import { describe } from '../execution/describe.js';

export function deleteVolume(ctx: ExecutorContext, item: Item, now: number, volumes: Map<string, ProviderVolume> | ClassifiedError): (() => Promise<void>) | undefined {
  const volume = item.record as VolumeRecord;
  const ownership = volumeOwnership(ctx, volume, volumes);
  if (ownership.kind === 'unknown') {
    item.result = volumeFailure(ctx, volume, now, ownership.error);
    return undefined;
  }
  if (ownership.kind === 'another') {
    item.result = volumeOfAnotherRecord(ctx, item, now, ownership.owner);
    return undefined;
  }
  return async () => {
    const outcome = await call(ctx, item, 'DeleteVolume', () => ctx.deps.provider.deleteVolume(volume.ebsVolumeId!));
    if (outcome.ok) {
      item.result = {
        outcome: 'in-progress',
        latencyMs: outcome.latencyMs,
        changes: { status: acceptedAgainStatus(volume.status, nextVolumeState(volume.status.state, 'delete-started'), now, 'deleting', VOLUME_NOT_DELETED_CODE) },
      };
      return;
    }
    if (outcome.error.outcome === 'already-done') {
      nextVolumeState(nextVolumeState(volume.status.state, 'delete-started'), 'observed-deleted');
      item.result = { outcome: 'succeeded', latencyMs: outcome.latencyMs, remove: true };
      return;
    }
    // Refused as in use with no attachment record left: attached outside the system (in the console).
    // One look writes the state and names the instances, and the next steps are looks, not deletes
    // (a detach still finishing, the record's own, is only waited for).
    if (outcome.error.code === 'VolumeInUse' && outcome.error.kind === 'incorrect-state') {
      const seen = await describe(ctx, [volume.ebsVolumeId!], 1, (ids) => ctx.deps.provider.describeVolumes(ids), (v) => v.ebsVolumeId);
      const current = seen instanceof Map ? seen.get(volume.ebsVolumeId!) : undefined;
      if (current?.state === 'in-use' && current.attachments.some((a) => a.state !== 'detaching' && a.state !== 'detached')) {
        item.result = { ...attachedOutside(ctx, volume, current, now), latencyMs: outcome.latencyMs };
        return;
      }
    }
    item.result = { ...volumeFailure(ctx, volume, now, outcome.error), latencyMs: outcome.latencyMs };
  };
}
