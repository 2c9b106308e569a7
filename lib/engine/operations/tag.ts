/**
 * CreateTags and DeleteTags that bring a volume's client tags in EC2 to the spec's, judged against
 * the tags this batch's DescribeVolumes saw; the ownership tags are never touched.
 */
import type { VolumeRecord } from '../../domain/records.js';
import { quoted } from '../../domain/status-message.js';
import { managedTagsOf } from '../../domain/validation.js';
import type { ClassifiedError } from '../errors.js';
import { tagCalls } from '../planner.js';
import type { ProviderVolume } from '../ports.js';
import type { ExecutorContext } from '../execution/context.js';
import type { Result, Item } from '../execution/item.js';
import { volumeFailure } from '../execution/results.js';
import { observedChanges, volumeVanished, describedVolume } from '../execution/checks.js';
import { call, preWrite } from '../execution/calls.js';

/**
 * Brings the volume's client tags in EC2 to the spec's: DeleteTags for keys removed, then
 * CreateTags for keys added or changed, judged against the tags EC2 holds now (this batch's
 * DescribeVolumes), so a repeated or late message whose tags EC2 already holds calls nothing.
 * Ownership tags are left out of both calls. The record then holds the tags as observed.
 */
export function prepareTag(ctx: ExecutorContext, item: Item, owner: string, now: number, volumes: Map<string, ProviderVolume> | ClassifiedError): (() => Promise<void>) | undefined {
  const volume = item.record as VolumeRecord;
  const current = describedVolume(ctx, item, now, volumes);
  if (!current) return undefined;
  const calls = tagCalls(managedTagsOf(volume, current.tags), volume.spec.tags);
  if (calls.length === 0) {
    item.result = { outcome: 'succeeded', changes: observedChanges(volume, current, now) };
    return undefined;
  }
  return async () => {
    // The keys a CreateTags may set are managed from before it is sent (`tagKeysSet`): should its
    // answer or the write after it be lost, a key the client then drops is still removed. An
    // earlier unrecorded call's keys stay while EC2 holds them (this batch's describe): at most
    // EC2's 50 tags, beside this call's. The write takes the claim too.
    const setting = calls.flatMap((call) => (call.action === 'CreateTags' ? Object.keys(call.tags) : []));
    const earlier = (volume.tagKeysSet ?? []).filter((key) => Object.hasOwn(current.tags, key));
    const tagKeysSet = [...new Set([...earlier, ...setting])].sort();
    const written = await preWrite<VolumeRecord>(ctx, item, owner, now, setting.length > 0 ? { tagKeysSet } : {});
    if (!written) return;
    item.record = written;
    let latencyMs = 0;
    for (const tagCall of calls) {
      const outcome = await call(ctx, item, tagCall.action, () =>
        tagCall.action === 'CreateTags' ? ctx.deps.provider.createTags(current.ebsVolumeId, tagCall.tags) : ctx.deps.provider.deleteTags(current.ebsVolumeId, tagCall.keys),
      );
      latencyMs += outcome.latencyMs;
      if (!outcome.ok) {
        item.result = { ...tagFailure(ctx, written, now, outcome.error), latencyMs };
        return;
      }
    }
    // What EC2 holds now: the calls made, every other tag (EC2's, ownership, set outside) untouched.
    const tags = { ...current.tags };
    for (const call of calls) {
      if (call.action === 'CreateTags') Object.assign(tags, call.tags);
      else for (const key of call.keys) delete tags[key];
    }
    const tagged: ProviderVolume = { ...current, tags };
    item.result = { outcome: 'succeeded', latencyMs, changes: observedChanges(written, tagged, now) };
  };
}

/** A failed CreateTags or DeleteTags: a vanished volume is forgotten, as a modification's is; EC2's tag limit is spelt out. */
function tagFailure(ctx: ExecutorContext, volume: VolumeRecord, now: number, error: ClassifiedError): Result {
  if (error.kind === 'not-found') return volumeVanished(volume, 'observed-deleted', now);
  return error.kind === 'limit-exceeded'
    ? volumeFailure(ctx, volume, now, {
        ...error,
        message: `EC2 refused the tags: ${quoted(error.message)} (a volume carries at most 50 tags: the client's, the 2 ownership tags and any set outside this system; remove some from spec.tags)`,
      })
    : volumeFailure(ctx, volume, now, error);
}
