/**
 * CreateVolume: where a new volume goes (its AZ), the request recorded before it is sent (so a
 * crash, a lost answer or a dying record repeats it under the same token), the call, and what its
 * answer (or a refusal EC2 will not let be repeated) means for the record.
 */
import { createHash, randomUUID } from 'node:crypto';
import { keyOf, keyString, type CreateRequest, type VolumeRecord } from '../../domain/records.js';
import { nextVolumeState } from '../../domain/state-machines.js';
import { shortenAround } from '../../domain/status-message.js';
import { createSentUnrecorded } from '../../domain/validation.js';
import { OWNERSHIP_TAGS } from '../../settings.js';
import { createRefused, createTokenVolumeDeleted, createUnrepeatable as unrepeatableError, type ClassifiedError } from '../errors.js';
import type { ProviderInstance, RecordChanges } from '../ports.js';
import { continuedStatus, successStatus } from '../status.js';
import type { ExecutorContext } from '../execution/context.js';
import type { Result, Item } from '../execution/item.js';
import { FORGET_CREATE_REQUEST, volumeErrorMessage, stepFailed, volumeTerminal, volumeFailure } from '../execution/results.js';
import { createVolumeClientToken, readableClientToken } from '../execution/ownership.js';
import { zoneOf, observedChanges } from '../execution/checks.js';
import { call, preWrite } from '../execution/calls.js';

/**
 * The CreateVolume request an earlier version sent without recording it (`createSentUnrecorded`),
 * as it sent it: its token named the record id and the generation it wrote before the call, and
 * it asked for the record's AZ and spec.
 */
function unrecordedCreateRequest(volume: VolumeRecord): CreateRequest {
  const generation = volume.observedGeneration ?? volume.generation;
  const clientToken =
    readableClientToken(`ebsp-${volume.volumeId}-g${generation}`) ?? `ebsp-${createHash('sha256').update(volume.volumeId).digest('hex').slice(0, 40)}-g${generation}`;
  return { clientToken, availabilityZone: volume.availabilityZone!, spec: volume.spec };
}

export async function prepareCreates(ctx: ExecutorContext, items: Item[], owner: string, now: number, instances: Map<string, ProviderInstance> | ClassifiedError) {
  const runs: { item: Item; run: () => Promise<void> }[] = [];
  await Promise.all(
    items.map(async (item) => {
      try {
        let volume = item.record as VolumeRecord;
        // An unanswered request is repeated as it was (same token, same parameters, whatever the spec is
        // now), so EC2 answers with the one volume its token made: never a second one, nor a mismatch.
        // One an earlier version sent without recording it is recorded now, as it was sent.
        const unrecorded = !volume.createRequest && createSentUnrecorded(volume);
        const repeat = unrecorded ? unrecordedCreateRequest(volume) : volume.createRequest;
        let request: CreateRequest;
        if (repeat) request = repeat;
        else {
          const placed = placeVolume(ctx, volume, now, instances);
          if (typeof placed !== 'string') {
            item.result = placed;
            return;
          }
          // A record written without createdAt has no mark of its incarnation: a random one serves, as the token is recorded before it is sent.
          const incarnation = volume.createdAt || randomUUID();
          request = { clientToken: createVolumeClientToken(volume.volumeId, incarnation, volume.generation), availabilityZone: placed, spec: volume.spec };
        }
        // Record the request (and the attempt) before calling EC2, so a crash, a lost answer or a dying record repeats it.
        const changes: RecordChanges<VolumeRecord> = !repeat
          ? { createRequest: request, observedGeneration: volume.generation, availabilityZone: request.availabilityZone }
          : unrecorded
            ? { createRequest: request }
            : {};
        if (volume.status.state !== 'creating') {
          const message = repeat ? 'repeating an unanswered CreateVolume' : 'creating';
          changes.status = successStatus(volume.status, nextVolumeState(volume.status.state, 'create-started'), now, message);
        }
        if (Object.keys(changes).length > 0) {
          // A request made now is of the spec as read: a client change since (a new zone, say) must not be sent under its name.
          const written = await preWrite<VolumeRecord>(ctx, item, owner, now, changes, repeat ? {} : { generation: volume.generation });
          if (!written) return;
          volume = written;
          item.record = written;
        }
        runs.push({ item, run: async () => {
          const tags = { ...request.spec.tags, [OWNERSHIP_TAGS.owner]: ctx.config.ownerTagValue, [OWNERSHIP_TAGS.record]: volume.volumeId };
          const outcome = await call(ctx, item, 'CreateVolume', () => ctx.deps.provider.createVolume({ ...request, tags }));
          if (!outcome.ok) {
            if (unrepeatableError(outcome.error)) {
              item.result = { ...createUnrepeatable(ctx, volume, request, now, outcome.error), latencyMs: outcome.latencyMs };
              return;
            }
            const failed = volumeFailure(ctx, volume, now, outcome.error);
            // Turned down, or answered with a definite no (a permission, a KMS key) the first time it was
            // sent: nothing exists under the token, and the next attempt places and sends the spec as it
            // is then (a zone EC2 does not have, or a key, put right, must not be taken from the refused
            // request; a dying record has nothing to learn and goes). Recorded now and deferred unsent, it
            // goes too, so its first send is not taken for a repeat. A repeat keeps it, unless refused: an
            // earlier send may have made a volume. A first send EC2 throttled keeps it too, and is made
            // again as it was (EC2 made nothing under the token: sending the spec as it is then would be
            // as safe).
            const first = !repeat && (outcome.error.notSent || (!outcome.error.uncertain && outcome.error.outcome !== 'throttled'));
            if (createRefused(outcome.error) || first) failed.changes = { ...(failed.changes as RecordChanges<VolumeRecord>), ...FORGET_CREATE_REQUEST };
            item.result = { ...failed, latencyMs: outcome.latencyMs };
            return;
          }
          const created = outcome.value;
          const base: RecordChanges<VolumeRecord> = { ebsVolumeId: created.ebsVolumeId, ...zoneOf(created) };
          if (created.state === 'error') {
            const terminal = volumeTerminal(volume, now, 'VolumeError', volumeErrorMessage(created.ebsVolumeId, volume.life === 'dying'));
            item.result = { ...terminal, latencyMs: outcome.latencyMs, changes: { ...base, ...(terminal.changes as RecordChanges<VolumeRecord>) } };
            return;
          }
          if (created.state === 'available' || created.state === 'in-use') {
            item.result = { outcome: 'succeeded', latencyMs: outcome.latencyMs, changes: { ...base, ...observedChanges(volume, created, now) } };
            return;
          }
          item.result = {
            outcome: 'in-progress',
            latencyMs: outcome.latencyMs,
            changes: { ...base, status: continuedStatus(volume.status, volume.status.state, now, `creating ${created.ebsVolumeId}`) },
          };
        } });
      } catch (error) {
        stepFailed(ctx, item, error);
      }
    }),
  );
  return runs;
}

/**
 * EC2 will not repeat the recorded CreateVolume (`createUnrepeatable`): the volume its token made,
 * if any, cannot be learnt, and the record stops waiting for it. The request is dropped, so a
 * dying record goes and an alive one ends in error, whose retry creates a new volume under a new
 * token. Unless EC2 says that volume was deleted (`createTokenVolumeDeleted`), the status (and the
 * log) say where a volume may be left behind, which the reconciler reports as leaked: it carries
 * the record's id in its tag and no record holds it.
 */
function createUnrepeatable(ctx: ExecutorContext, volume: VolumeRecord, request: CreateRequest, now: number, error: ClassifiedError): Result {
  const deleted = createTokenVolumeDeleted(error);
  // A long EC2 message is shortened, never what the status says of the volume and of a retry.
  const message = shortenAround(
    `EC2 will not repeat CreateVolume with token ${request.clientToken} (`,
    error.message,
    '): ' +
      (deleted
        ? 'the volume it made has been deleted'
        : `a volume it may have made cannot be learnt and, if it exists, is reported by the reconciler as leaked (tag ${OWNERSHIP_TAGS.record}=${volume.volumeId})`) +
      (volume.life === 'alive' ? '; a retry creates a new volume' : ''),
  );
  const fields = { key: keyString(keyOf(volume)), clientToken: request.clientToken, code: error.code };
  if (deleted) ctx.deps.log.info('CreateVolume cannot be repeated; the volume its token made has been deleted', fields);
  else ctx.deps.log.warn('CreateVolume cannot be repeated; its volume, if any, is left to the leak report', fields);
  const terminal = volumeTerminal(volume, now, error.code, message);
  return { ...terminal, changes: { ...(terminal.changes as RecordChanges<VolumeRecord>), ...FORGET_CREATE_REQUEST } };
}

/** The AZ a new volume goes in: the one recorded, the spec's, or its placement instance's; else why not. */
function placeVolume(ctx: ExecutorContext, volume: VolumeRecord, now: number, instances: Map<string, ProviderInstance> | ClassifiedError): string | Result {
  const availabilityZone = volume.availabilityZone ?? volume.spec.availabilityZone;
  if (availabilityZone) return availabilityZone;
  if (volume.spec.placementInstanceId) {
    if (!(instances instanceof Map)) return volumeFailure(ctx, volume, now, instances);
    const instance = instances.get(volume.spec.placementInstanceId);
    // Terminated (or on its way there, which never turns back): a volume in its zone would be for no one.
    if (instance && (instance.state === 'terminated' || instance.state === 'shutting-down')) {
      return volumeFailure(ctx, volume, now, {
        outcome: 'terminal',
        code: 'IncorrectInstanceState',
        message: `placement instance ${instance.instanceId} is ${instance.state}; nothing was created: name another instance or an availabilityZone`,
      });
    }
    if (instance) return instance.availabilityZone;
    return volumeFailure(ctx, volume, now, {
      outcome: 'wait-for-prerequisite',
      code: 'InvalidInstanceID.NotFound',
      message: `placement instance ${volume.spec.placementInstanceId} not found`,
    });
  }
  return volumeFailure(ctx, volume, now, {
    outcome: 'terminal',
    code: 'MissingPlacement',
    message: 'spec has neither availabilityZone nor placementInstanceId',
  });
}
