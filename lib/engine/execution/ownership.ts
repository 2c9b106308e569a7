/**
 * Whose an EC2 volume is: the CreateVolume token that marks a record's own request, the ownership
 * tags CreateVolume sets (this deployment's, and the record's id), and what is done when a volume
 * record names a volume that is another record's or not this deployment's. Nothing here calls
 * EC2: it judges the batch's descriptions.
 */
import { createHash } from 'node:crypto';
import type { VolumeRecord } from '../../domain/records.js';
import { OWNERSHIP_TAGS } from '../../settings.js';
import type { ClassifiedError } from '../errors.js';
import type { ProviderVolume } from '../ports.js';
import type { ExecutorContext } from './context.js';
import type { Result, Item } from './item.js';
import { volumeTerminal } from './results.js';

/**
 * Idempotency token of CreateVolume: unique to the record's incarnation (its id and creation time,
 * so a record deleted and created again under the same id never gets the old volume back) and to
 * the generation being created. At most 64 printable ASCII characters, EC2's limit: the record id
 * stays readable when it fits (ids run to 128 characters), else everything is hashed; any
 * generation a number can hold fits either way.
 */
export function createVolumeClientToken(volumeId: string, createdAt: string, generation: number): string {
  const incarnation = incarnationHash(volumeId, createdAt);
  return readableClientToken(`ebsp-${volumeId}-${incarnation.slice(0, 12)}-g${generation}`) ?? `ebsp-${incarnation.slice(0, 32)}-g${generation}`;
}

/** The latest incarnations' hashes: every batch asks for its records' tokens again (`ownCreateRequest`). */
const incarnationHashes = new Map<string, string>();

const INCARNATION_HASHES_KEPT = 4096;

/** SHA-256, in hex, of a record's id and creation time. */
function incarnationHash(volumeId: string, createdAt: string): string {
  const incarnation = `${volumeId}\n${createdAt}`;
  let hash = incarnationHashes.get(incarnation);
  if (hash === undefined) {
    if (incarnationHashes.size >= INCARNATION_HASHES_KEPT) incarnationHashes.clear();
    hash = createHash('sha256').update(incarnation).digest('hex');
    incarnationHashes.set(incarnation, hash);
  }
  return hash;
}

/** `token` when it is a ClientToken EC2 takes (at most 64 ASCII characters) that reads plainly (printable, no space), else undefined. */
export function readableClientToken(token: string): string | undefined {
  return token.length <= 64 && /^[\x21-\x7e]+$/.test(token) ? token : undefined;
}

/**
 * The id of the volume record the EC2 volume `described` belongs to (its `ebs-provisioner:volume-id`
 * tag, which CreateVolume sets), when that is another record than `volume`: `volume` then names an
 * EC2 volume it did not create (its item copied from another one in the table, say). Undefined when
 * the volume is the record's own, carries no such tag (made before the tag existed), or was not described.
 */
export function ownedByAnotherRecord(volume: Pick<VolumeRecord, 'volumeId'>, described: ProviderVolume | undefined): string | undefined {
  const tagged = described?.tags[OWNERSHIP_TAGS.record];
  return tagged !== undefined && tagged !== volume.volumeId ? tagged : undefined;
}

/**
 * Whether the volume's recorded CreateVolume request is one this record made (its token is the
 * record's own, `createVolumeClientToken`): its EC2 volume id then came from EC2's answer to it, and
 * is the record's own. A record copied in the table from another one carries that one's request.
 */
export function ownCreateRequest(volume: Pick<VolumeRecord, 'volumeId' | 'createdAt' | 'createRequest'>): boolean {
  const token = volume.createRequest?.clientToken;
  const generation = token === undefined ? undefined : /-g(\d+)$/.exec(token)?.[1];
  return generation !== undefined && token === createVolumeClientToken(volume.volumeId, volume.createdAt, Number(generation));
}

/**
 * Whether the EC2 volume `described` is not this deployment's: it lacks the ownership tag with this
 * deployment's value (`ownerTagValue`), which CreateVolume always sets and nothing here removes.
 * It is another deployment's, or was made outside the system; IAM lets the executor change only
 * volumes carrying the tag, and the engine holds to the same rule on every backend. False when
 * the volume was not described (gone).
 */
export function notThisDeployments(described: ProviderVolume | undefined, ownerTagValue: string): boolean {
  return described !== undefined && described.tags[OWNERSHIP_TAGS.owner] !== ownerTagValue;
}

/** The code of the status of a volume record whose `ebsVolumeId` names another record's EC2 volume (`ownedByAnotherRecord`). */
export const VOLUME_OF_ANOTHER_RECORD_CODE = 'VolumeOfAnotherRecord';

/** The code of the status of a volume record whose `ebsVolumeId` names an EC2 volume this deployment did not create (`notThisDeployments`). */
export const VOLUME_NOT_OWNED_CODE = 'VolumeNotOwned';

export function notOwnedCode(owner: string | undefined): string {
  return owner === undefined ? VOLUME_NOT_OWNED_CODE : VOLUME_OF_ANOTHER_RECORD_CODE;
}

/**
 * Why nothing is done for volume record `volume` (or an attachment of it) to the EC2 volume it
 * names, which is `owner`'s, or (`owner` undefined) not this deployment's.
 */
export function anotherRecordsVolume(volume: VolumeRecord, owner: string | undefined, ownerTagValue: string): string {
  if (owner === undefined) {
    return (
      `volume record ${volume.volumeId} names ${volume.ebsVolumeId}, an EC2 volume this deployment did not create (it lacks the tag ` +
      `${OWNERSHIP_TAGS.owner}=${ownerTagValue}): a record cannot take over a volume it did not create, so nothing is done to it for this one; ` +
      `delete volume record ${volume.volumeId} (its delete leaves that volume alone) and write it afresh without the system's fields`
    );
  }
  return (
    `volume record ${volume.volumeId} names ${volume.ebsVolumeId}, the EC2 volume of volume record ${owner} (its tag ${OWNERSHIP_TAGS.record}) ` +
    `(copied from that record in the table?): a record cannot take over another's volume, so nothing is done to it for this one; ` +
    `delete volume record ${volume.volumeId} (its delete leaves that volume alone) and write it afresh without the system's fields`
  );
}

/**
 * Whether the EC2 volume a volume record names is its own before a call acts on it: `own` when
 * its recorded CreateVolume request is the record's (`ownCreateRequest`: no describe needed),
 * else as this batch's describe shows its ownership tags: `another` record's (the item copied in
 * the table; `owner` undefined: no volume of this deployment at all, `notThisDeployments`), or
 * `unknown` when the describe failed.
 */
export function volumeOwnership(
  ctx: ExecutorContext,
  volume: VolumeRecord,
  volumes: Map<string, ProviderVolume> | ClassifiedError,
): { kind: 'own' } | { kind: 'another'; owner: string | undefined } | { kind: 'unknown'; error: ClassifiedError } {
  if (!volume.ebsVolumeId || ownCreateRequest(volume)) return { kind: 'own' };
  if (!(volumes instanceof Map)) return { kind: 'unknown', error: volumes };
  const described = volumes.get(volume.ebsVolumeId);
  if (notThisDeployments(described, ctx.config.ownerTagValue)) return { kind: 'another', owner: undefined };
  const owner = ownedByAnotherRecord(volume, described);
  return owner === undefined ? { kind: 'own' } : { kind: 'another', owner };
}

/**
 * A volume record naming another record's EC2 volume (its item copied from that one in the table,
 * the volume id with it), or one this deployment did not create (`owner` undefined): nothing is
 * done to that volume for it. Dying, it never had a volume of its own and goes with no call;
 * alive, it ends in error saying whose volume it names.
 */
export function volumeOfAnotherRecord(ctx: ExecutorContext, item: Item, now: number, owner: string | undefined): Result {
  const volume = item.record as VolumeRecord;
  if (volume.life === 'dying') {
    ctx.deps.log.warn(
      owner === undefined
        ? 'volume record names an EC2 volume this deployment did not create; removed without deleting it'
        : 'volume record names the EC2 volume of another record; removed without deleting it',
      { key: item.id, ebsVolumeId: volume.ebsVolumeId, ...(owner === undefined ? {} : { ownerRecord: owner }) },
    );
    return { outcome: 'succeeded', remove: true };
  }
  return volumeTerminal(volume, now, notOwnedCode(owner), anotherRecordsVolume(volume, owner, ctx.config.ownerTagValue));
}
