/**
 * Validation of everything that comes from outside: API requests and records read from the table
 * (a record written straight into the table is input too). Messages name the field, the limit and
 * the value, e.g. `spec.iops: gp3 supports 3000–80000 IOPS, got 90000`.
 */
import { z } from 'zod';
import { sameJson } from './canonical-json.js';
import { EBS_LIMITS, MODIFICATIONS_PER_WINDOW, performanceChange, provisionedPerformance } from './ebs-limits.js';
import { MAX_STATUS_MESSAGE_CHARS, shortenList, shortenMiddle } from './status-message.js';
import {
  ATTACHMENT_STATES,
  VOLUME_STATES,
  VOLUME_TYPES,
  type AttachmentRecord,
  type ProvisionerRecord,
  type VolumeRecord,
  type VolumeSpec,
} from './records.js';

export interface ValidationIssue {
  /** Dotted path of the field, e.g. `spec.iops`; empty for the value as a whole. */
  path: string;
  message: string;
}

export type Result<T> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** Tags the system puts on every volume itself; clients may not set these keys. */
export const RESERVED_TAG_PREFIXES = ['aws:', 'ebs-provisioner:'] as const;
/** EC2 allows 50 tags per resource; the system adds two ownership tags. */
export const MAX_CLIENT_TAGS = 48;

/**
 * The rules of the ids a request names, as people read them: the descriptions of the schemas below,
 * which the API's documents (openapi.json, and docs/api.md generated from it) give beside each
 * pattern, so the words and the check sit side by side.
 */
export const ID_RULES = {
  volumeId: '1–128 letters, digits, ".", "_" or "-", starting with a letter or digit',
  instanceId: '"i-" and 8 or 17 lowercase hexadecimal digits, like i-0123456789abcdef0',
  snapshotId: '"snap-" and 8 or 17 lowercase hexadecimal digits, like snap-0123456789abcdef0',
  deviceName:
    '/dev/sd or /dev/xvd and one letter from b to z, or /dev/xvd and two letters from aa to dx (a, b or c and any letter, or d and a ' +
    'letter from a to x: EC2 refuses the names after /dev/xvddx), like /dev/sdf or /dev/xvdba',
  kmsKeyId: 'a KMS key id (a UUID in lowercase), a multi-Region key id (mrk-…), an alias (alias/…), or a key or alias ARN',
} as const;

export const instanceIdSchema = z
  .string()
  .regex(/^i-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, 'must be an EC2 instance id like i-0123456789abcdef0')
  .meta({ description: `An EC2 instance id: ${ID_RULES.instanceId}.` });
export const ebsVolumeIdSchema = z.string().regex(/^vol-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, 'must be an EBS volume id like vol-0123456789abcdef0');
export const snapshotIdSchema = z
  .string()
  .regex(/^snap-(?:[0-9a-f]{8}|[0-9a-f]{17})$/, 'must be a snapshot id like snap-0123456789abcdef0')
  .meta({ description: `An EBS snapshot id: ${ID_RULES.snapshotId}.` });
/**
 * Linux device names EC2 accepts for EBS attachments: /dev/sd[b-z], /dev/xvd[b-z], and of the
 * two-letter names /dev/xvd[a-c][a-z] and /dev/xvdd[a-x] (EC2's device-naming page lists
 * /dev/xvd[a-d][a-z] for HVM instances, and refuses /dev/xvddy and /dev/xvddz all the same).
 */
export const deviceNameSchema = z
  .string()
  .regex(
    /^\/dev\/(?:sd[b-z]|xvd[b-z]|xvd[a-c][a-z]|xvdd[a-x])$/,
    'must be a device name EC2 takes for a volume: /dev/sd[b-z], /dev/xvd[b-z], /dev/xvd[a-c][a-z] or /dev/xvdd[a-x], like /dev/sdf or /dev/xvdba',
  )
  .meta({ description: `A block device name on the instance: ${ID_RULES.deviceName}.` });
/**
 * The device names taken before names were held to EC2's (any two letters after /dev/xvd): a dying
 * attachment's requested device may still be one, so that it can be detached and removed (its
 * device no longer matters).
 */
const formerDeviceNameSchema = z.string().regex(/^\/dev\/(?:sd[b-z]|xvd[b-z]|xvd[a-z]{2})$/, 'must be a device name like /dev/sdf or /dev/xvdba');
/** The client's own name for a volume record. */
export const volumeRecordIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, `must be ${ID_RULES.volumeId}`)
  .meta({ description: `A volume record id: ${ID_RULES.volumeId}.` });
/**
 * An Availability Zone (`us-east-1a`), a Local Zone (`us-west-2-lax-1a`) or a Wavelength Zone
 * (`us-east-1-wl1-bos-wlz-1`): EC2 creates volumes and instances in each, by its zone name.
 * - "The code for an Availability Zone is its Region code followed by a letter identifier" (AWS
 *   Availability Zones, global infrastructure guide). A Region code is lowercase words and a number;
 *   AWS states no length for its first word: the partitions its SDKs carry (@aws-sdk/core's
 *   endpoint partitions) name two-letter ones (`us`, `eu`, `ap`, `cn`…, `us-gov`, `us-iso`) and
 *   `eusc-de-east-1` (AWS European Sovereign Cloud), so any of two letters or more is taken.
 * - A Local Zone is "the code of the Local Zone's parent Region followed by an identifier for its
 *   location" (`lax-1a`: Available Local Zones, Local Zones user guide).
 * - A Wavelength Zone is "represented by an AWS Region code followed by an identifier that indicates
 *   the location" (Capacity Reservations in Wavelength Zones, EC2 user guide); every zone the
 *   Wavelength guide lists is `-wl1-<location>-wlz-<number>`, and AWS states no rule for the number
 *   after `wl`, so any is taken. EC2 refuses a zone that does not exist, by its own error.
 * https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-availability-zones.html
 * https://docs.aws.amazon.com/local-zones/latest/ug/available-local-zones.html
 * https://docs.aws.amazon.com/wavelength/latest/developerguide/available-wavelength-zones.html
 */
export const availabilityZoneSchema = z
  .string()
  .regex(
    /^[a-z]{2,}(?:-[a-z]+)+-\d+(?:(?:-[a-z]+-\d+)?[a-z]|-wl\d+-[a-z]+-wlz-\d+)$/,
    'must be an availability zone like us-east-1a, a Local Zone like us-west-2-lax-1a or a Wavelength Zone like us-east-1-wl1-bos-wlz-1',
  );
export const kmsKeyIdSchema = z
  .string()
  .regex(
    /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|mrk-[0-9a-f]{32}|alias\/[A-Za-z0-9/_-]{1,250}|arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:(?:key\/[0-9a-zA-Z-]+|alias\/[A-Za-z0-9/_-]{1,250}))$/,
    'must be a KMS key id, alias, key ARN or alias ARN',
  )
  .meta({ description: `The KMS key that encrypts the volume: ${ID_RULES.kmsKeyId}.` });

/**
 * What a tag key and value may hold: letters, digits, spaces and `_ . : / = + - @`, the set AWS
 * allows across its services. EC2 itself takes more, but a tag outside this set may be refused by
 * other services that read it (cost allocation, say).
 */
export const TAG_CHARACTERS_PATTERN = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
/**
 * EC2's limits on a tag, in characters (Unicode code points, not UTF-16 code units): EC2's `Tag`
 * takes keys of at most 127 characters (other AWS services take 128) and values of at most 256.
 */
export const TAG_KEY_MAX_CHARS = 127;
export const TAG_VALUE_MAX_CHARS = 256;

/** The length of `text` in characters as EC2 counts them: Unicode code points (`𠀀` is one, not two). */
export function characterCount(text: string): number {
  let count = 0;
  for (const _character of text) count++;
  return count;
}

/** A string of at most `max` characters (code points), e.g. a tag key or value EC2 holds. */
function atMostCharacters(max: number, min = 0) {
  return z.string().refine((text) => {
    const count = characterCount(text);
    return count >= min && count <= max;
  }, `must be ${min > 0 ? `${min}–${max}` : `at most ${max}`} characters`);
}

/** The tag rules as people read them (the API documents them with the schema). */
export const TAG_RULES =
  `At most ${MAX_CLIENT_TAGS} tags (EC2 allows 50 on a volume; the system adds two ownership tags). Keys of 1–${TAG_KEY_MAX_CHARS} ` +
  `characters, values of at most ${TAG_VALUE_MAX_CHARS} (Unicode characters, as EC2 counts them). Keys and values may hold only ` +
  'letters, digits, spaces and `_ . : / = + - @`: the set AWS allows across its services (EC2 takes more), so the tags stay usable by ' +
  'the other services that read them (cost allocation, say). Keys starting with `aws:` or `ebs-provisioner:` (in any case) are reserved for AWS and ' +
  'for the ownership tags the system sets.';

/** Adds a custom issue at `path` (a tag key, a spec field). Module level: schemas run it for every record read. */
function addIssue(ctx: z.RefinementCtx, path: string, message: string): void {
  ctx.addIssue({ code: 'custom', path: [path], message });
}

/** The reserved prefix `key` starts with, in any case, if any. */
function reservedPrefixOf(key: string): string | undefined {
  const lower = key.toLowerCase();
  for (const prefix of RESERVED_TAG_PREFIXES) if (lower.startsWith(prefix)) return prefix;
  return undefined;
}

/**
 * The longest tag key a dying volume's spec may hold: 128, the limit before keys were held to
 * EC2's 127, so a volume asked for under it can still be deleted (its tags no longer matter).
 */
export const DYING_TAG_KEY_MAX_CHARS = 128;

/**
 * The tag rules, keys of 1–`keyMaxChars` characters. Too many tags is one issue, the count, found
 * before anything else is judged: one issue per key (a value that is not a string, say) would let
 * a large body of tags make an answer as large.
 */
const tagsWithKeysUpTo = (keyMaxChars: number) => z.preprocess((tags, ctx) => {
  const count = tags !== null && typeof tags === 'object' && !Array.isArray(tags) ? Object.keys(tags).length : 0;
  if (count > MAX_CLIENT_TAGS) ctx.addIssue({ code: 'custom', message: `at most ${MAX_CLIENT_TAGS} tags, got ${count}`, input: tags });
  return tags;
}, z.record(z.string(), z.string().meta({ maxLength: TAG_VALUE_MAX_CHARS })).superRefine((tags, ctx) => {
  for (const [key, value] of Object.entries(tags)) {
    const keyChars = characterCount(key);
    const valueChars = characterCount(value);
    if (keyChars < 1 || keyChars > keyMaxChars) addIssue(ctx, key, `tag key must be 1–${keyMaxChars} characters, got ${keyChars}`);
    if (valueChars > TAG_VALUE_MAX_CHARS) addIssue(ctx, key, `tag value must be at most ${TAG_VALUE_MAX_CHARS} characters, got ${valueChars}`);
    if (!TAG_CHARACTERS_PATTERN.test(key) || !TAG_CHARACTERS_PATTERN.test(value)) {
      addIssue(ctx, key, 'tags may contain only letters, digits, spaces and _ . : / = + - @');
    }
    const reserved = reservedPrefixOf(key);
    if (reserved) addIssue(ctx, key, `tag keys starting with "${reserved}" are reserved`);
  }
}));

export const tagsSchema = tagsWithKeysUpTo(TAG_KEY_MAX_CHARS).meta({ description: TAG_RULES, maxProperties: MAX_CLIENT_TAGS });

/**
 * A positive whole number. One past `Number.MAX_SAFE_INTEGER` is a whole number too, so it is
 * refused as too large (the EBS limits then say the range), never as not whole; a negative one is
 * refused as not positive alone.
 */
const positiveInt = z
  .number()
  .positive({ error: 'must be positive', abort: true })
  .int({ error: (issue) => (issue.code === 'too_big' ? `must be at most ${Number.MAX_SAFE_INTEGER}` : 'must be a whole number') });

/** The structure of a volume spec, before the per-type EBS limits. */
const volumeSpecShape = z.strictObject({
  sizeGiB: positiveInt,
  volumeType: z.enum(VOLUME_TYPES),
  iops: positiveInt.optional(),
  throughput: positiveInt.optional(),
  availabilityZone: availabilityZoneSchema.optional(),
  placementInstanceId: instanceIdSchema.optional(),
  encrypted: z.boolean().optional(),
  kmsKeyId: kmsKeyIdSchema.optional(),
  snapshotId: snapshotIdSchema.optional(),
  tags: tagsSchema.optional(),
  multiAttach: z.boolean().optional(),
});

/** Adds an issue for every EBS rule `spec` breaks. */
function checkEbsLimits(spec: z.infer<typeof volumeSpecShape>, ctx: z.RefinementCtx): void {
  const limits = EBS_LIMITS[spec.volumeType];
  const type = spec.volumeType;

  if (spec.sizeGiB < limits.sizeGiB.min || spec.sizeGiB > limits.sizeGiB.max) {
    addIssue(ctx, 'sizeGiB', `${type} volumes are ${limits.sizeGiB.min}–${limits.sizeGiB.max} GiB, got ${spec.sizeGiB}`);
  }
  if (!limits.iops) {
    if (spec.iops !== undefined) addIssue(ctx, 'iops', `${type} volumes take no IOPS setting`);
  } else if (spec.iops === undefined) {
    if (limits.iops.required) addIssue(ctx, 'iops', `${type} volumes require an IOPS setting (${limits.iops.min}–${limits.iops.max})`);
  } else {
    if (spec.iops < limits.iops.min || spec.iops > limits.iops.max) {
      addIssue(ctx, 'iops', `${type} supports ${limits.iops.min}–${limits.iops.max} IOPS, got ${spec.iops}`);
    }
    const perGiB = limits.iops.maxPerGiB;
    // At or below the type's minimum, any size is fine (gp3's baseline 3000 IOPS comes with every size).
    if (perGiB !== undefined && spec.iops > limits.iops.min && spec.iops > spec.sizeGiB * perGiB) {
      addIssue(ctx, 'iops', `${type} allows at most ${perGiB} IOPS per GiB: ${spec.sizeGiB} GiB allows ${spec.sizeGiB * perGiB}, got ${spec.iops}`);
    }
  }
  if (!limits.throughput) {
    if (spec.throughput !== undefined) addIssue(ctx, 'throughput', `${type} volumes take no throughput setting`);
  } else if (spec.throughput !== undefined) {
    if (spec.throughput < limits.throughput.min || spec.throughput > limits.throughput.max) {
      addIssue(ctx, 'throughput', `${type} supports ${limits.throughput.min}–${limits.throughput.max} MiB/s, got ${spec.throughput}`);
    }
    const perIops = limits.throughput.maxPerIops;
    const iops = provisionedPerformance(spec).iops;
    if (perIops !== undefined && iops !== undefined && spec.throughput > limits.throughput.min && spec.throughput > iops * perIops) {
      addIssue(ctx, 'throughput', `${type} allows at most ${perIops} MiB/s per IOPS: ${iops} IOPS allows ${iops * perIops}, got ${spec.throughput}`);
    }
  }
  if (spec.multiAttach && !limits.multiAttach) addIssue(ctx, 'multiAttach', `multi-attach is available on io1 and io2 only, not ${type}`);
  if (spec.kmsKeyId !== undefined && spec.encrypted !== true) addIssue(ctx, 'encrypted', 'must be true when kmsKeyId is given');
  if (spec.availabilityZone !== undefined && spec.placementInstanceId !== undefined) {
    addIssue(ctx, 'placementInstanceId', 'give either availabilityZone or placementInstanceId, not both');
  }
}

/** A volume spec: its structure and the current EBS limits for its type. */
export const volumeSpecSchema = volumeSpecShape.superRefine(checkEbsLimits);

/**
 * The longest a time the system writes may be, in characters: ISO-8601 needs 24 (27 with a
 * six-digit year). Every free-text field of a record is bounded like this, so a valid record stays
 * well within DynamoDB's 400 KB item limit (about 300 KB at the very most) and a status write
 * always fits on it.
 */
const MAX_TIME_CHARS = 64;
/** The longest status message a record may hold: four times what the system writes (`MAX_STATUS_MESSAGE_CHARS`). */
const MAX_RECORD_MESSAGE_CHARS = 4 * MAX_STATUS_MESSAGE_CHARS;
/** The longest status code or claim owner: EC2's error codes and the executors' owner ids are far shorter. */
const MAX_NAME_CHARS = 256;

// A time the engine computes with (a next attempt, an operation's start): one that does not read as a time would schedule nothing.
const isoTime = z.iso.datetime({ error: 'must be an ISO-8601 time like 2026-01-01T12:00:00.000Z' }).max(MAX_TIME_CHARS);
const timeText = z.string().max(MAX_TIME_CHARS);

const claimSchema = z.strictObject({ owner: z.string().min(1).max(MAX_NAME_CHARS), expiresAt: z.number().int() });

function statusSchema<S extends readonly [string, ...string[]]>(states: S) {
  return z.strictObject({
    state: z.enum(states),
    message: z.string().max(MAX_RECORD_MESSAGE_CHARS).optional(),
    code: z.string().max(MAX_NAME_CHARS).optional(),
    attempts: z.number().int().nonnegative(),
    nextAttemptAt: isoTime.optional(),
    updatedAt: timeText,
    operationStartedAt: isoTime.optional(),
  });
}

/** Defaults for the fields the system writes, so a record a client wrote directly can still be read. */
export const systemDefaults = { status: { state: 'pending', attempts: 0, updatedAt: '' }, version: 0, createdAt: '' } as const;

/** Whether the spec says where EBS creates the volume: an AZ, or an instance whose AZ it goes in. */
export function isPlaced(spec: Pick<VolumeSpec, 'availabilityZone' | 'placementInstanceId'>): boolean {
  return spec.availabilityZone !== undefined || spec.placementInstanceId !== undefined;
}

/** A volume's size, type and performance as EBS holds them (or a ModifyVolume brings them to): `ModificationTarget`. */
const modificationTargetShape = {
  sizeGiB: z.number().int().positive(),
  volumeType: z.enum(VOLUME_TYPES),
  iops: z.number().int().positive().optional(),
  throughput: z.number().int().positive().optional(),
};

/**
 * A CreateVolume ClientToken as EC2 documents it: "a unique, case-sensitive string of up to 64
 * ASCII characters" (Ensuring idempotency in Amazon EC2 API requests); the API reference and the
 * SDK's model add no other constraint, and the SDK sends the token as it is. Not empty: the
 * request is repeated under it to learn the volume EC2 made. This system's own tokens are
 * printable (`createVolumeClientToken`); a hand-written one EC2 turns down is dropped like any
 * refused request.
 * https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-idempotency.html
 */
const clientTokenSchema = z.string().regex(/^[^\u0080-\uffff]{1,64}$/, 'must be 1 to 64 ASCII characters, as EC2 takes for a ClientToken');

const volumeRecordShape = z.strictObject({
  kind: z.literal('volume'),
  volumeId: volumeRecordIdSchema,
  spec: volumeSpecSchema,
  life: z.enum(['alive', 'dying']),
  generation: z.number().int().positive(),
  status: statusSchema(VOLUME_STATES).default(systemDefaults.status),
  ebsVolumeId: ebsVolumeIdSchema.optional(),
  createRequest: z
    .strictObject({
      clientToken: clientTokenSchema,
      availabilityZone: availabilityZoneSchema,
      // Judged against the EBS limits when it was sent; only its structure now.
      spec: volumeSpecShape,
    })
    .optional(),
  availabilityZone: availabilityZoneSchema.optional(),
  observedGeneration: z.number().int().nonnegative().optional(),
  retriedGeneration: z.number().int().positive().optional(),
  observed: z
    .strictObject({
      ...modificationTargetShape,
      // The client's tags EC2 holds (ownership tags left out); absent until a check has seen them. Within EC2's tag limits.
      tags: z
        .record(atMostCharacters(TAG_KEY_MAX_CHARS), atMostCharacters(TAG_VALUE_MAX_CHARS))
        .refine((tags) => Object.keys(tags).length <= 50, 'at most 50 tags: a volume carries no more')
        .optional(),
    })
    .optional(),
  lastModificationStartedAt: isoTime.optional(),
  // The starts EC2 still counts before the latest: 3 at most.
  earlierModificationStarts: z.array(isoTime).max(MODIFICATIONS_PER_WINDOW - 1).optional(),
  modificationSentAt: isoTime.optional(),
  failedModifications: z.strictObject({ target: z.strictObject(modificationTargetShape), count: z.number().int().positive() }).optional(),
  // EC2 tag keys: 1–127 characters. Those of one CreateTags (a volume carries at most 50 tags) and
  // those of earlier unrecorded ones that EC2 holds (at most 50 again).
  tagKeysSet: z.array(atMostCharacters(TAG_KEY_MAX_CHARS, 1)).max(100).optional(),
  claim: claimSchema.optional(),
  version: z.number().int().nonnegative().default(systemDefaults.version),
  createdAt: timeText.default(systemDefaults.createdAt),
});

/** A retry made for a generation the record has not reached would swallow the retries asked for up to it. */
function retriedGenerationReached(record: { generation: number; retriedGeneration?: number | undefined }, ctx: z.RefinementCtx): void {
  if (record.retriedGeneration !== undefined && record.retriedGeneration > record.generation)
    ctx.addIssue({ code: 'custom', path: ['retriedGeneration'], message: `is ${record.retriedGeneration}, past the record's generation ${record.generation}` });
}

/** Volume states the system writes only while the record holds its EC2 volume's id: their checks and calls are of that volume. */
const STATES_OF_A_HELD_VOLUME: ReadonlySet<string> = new Set(['available', 'in-use', 'modifying', 'deleting']);

/** Written without the id in such a state (by hand), nothing would create the volume, and a check or DeleteVolume would name none. */
function heldVolumeNamed(record: { ebsVolumeId?: string | undefined; status: { state: string } }, ctx: z.RefinementCtx): void {
  if (record.ebsVolumeId === undefined && STATES_OF_A_HELD_VOLUME.has(record.status.state))
    ctx.addIssue({ code: 'custom', path: ['ebsVolumeId'], message: `is required in state ${record.status.state}, which the system writes only with the EC2 volume's id` });
}

/**
 * A record's final state (`deleted`, `detached`) is never written into the table: the system removes
 * the record on reaching it. Written there by hand, it would have the record removed without a word
 * (the planner's answer to a final state), alive or not, whatever EC2 holds for it.
 */
function notInFinalState(record: { status: { state: string } }, ctx: z.RefinementCtx): void {
  if (record.status.state === 'deleted' || record.status.state === 'detached')
    ctx.addIssue({ code: 'custom', path: ['status', 'state'], message: `is ${record.status.state}, a final state the system never writes: a record that reaches it is removed` });
}

/** The rules of a volume record beyond its fields' own, dying or not. */
function volumeStateRules(record: { ebsVolumeId?: string | undefined; status: { state: string } }, ctx: z.RefinementCtx): void {
  heldVolumeNamed(record, ctx);
  notInFinalState(record, ctx);
}

export const volumeRecordSchema = volumeRecordShape.superRefine((record, ctx) => {
  // A volume still to be created needs a place; a dying one is removed without EC2 all the same.
  if (record.life === 'alive' && record.ebsVolumeId === undefined && record.availabilityZone === undefined && !isPlaced(record.spec)) {
    ctx.addIssue({ code: 'custom', path: ['spec', 'availabilityZone'], message: 'is required unless placementInstanceId names an instance whose AZ the volume goes in' });
  }
  volumeStateRules(record, ctx);
  retriedGenerationReached(record, ctx);
});

/**
 * A dying volume whose spec EBS would refuse (written straight into the table, or a tag key of 128
 * characters asked for before keys were held to 127): it is deleted all the same, so its spec is
 * read for its structure only. Everything the system needs to delete it
 * (its EC2 id, an unanswered CreateVolume request) is checked as for any record.
 */
const dyingVolumeRecordSchema = volumeRecordShape
  .extend({
    spec: volumeSpecShape.extend({
      sizeGiB: z.number(),
      iops: z.number().optional(),
      throughput: z.number().optional(),
      tags: tagsWithKeysUpTo(DYING_TAG_KEY_MAX_CHARS).optional(),
    }),
    life: z.literal('dying'),
  })
  .superRefine(volumeStateRules);

const instanceSeenSchema = z.strictObject({
  availabilityZone: z.string().min(1).max(64),
  state: z.enum(['running', 'stopped']),
  // EC2's own device names (root devices such as /dev/xvda or /dev/sda1 included), not only the ones this system allocates.
  otherDevices: z.array(z.string().min(1).max(64)).max(128),
  describedAt: z.number().int().nonnegative(),
});

const attachmentRecordShape = z.strictObject({
  kind: z.literal('attachment'),
  volumeId: volumeRecordIdSchema,
  instanceId: instanceIdSchema,
  life: z.enum(['alive', 'dying']),
  requestedDevice: deviceNameSchema.optional(),
  forceDetach: z.boolean().optional(),
  generation: z.number().int().positive().default(1),
  retriedGeneration: z.number().int().positive().optional(),
  status: statusSchema(ATTACHMENT_STATES).default(systemDefaults.status),
  // As EC2 shows it: the name the system allocated, or another one the volume was attached under outside the system.
  device: z.string().min(1).max(64).optional(),
  instanceSeen: instanceSeenSchema.optional(),
  volumeCreatedAt: timeText.optional(),
  forceDetachSentAt: isoTime.optional(),
  claim: claimSchema.optional(),
  version: z.number().int().nonnegative().default(systemDefaults.version),
  createdAt: timeText.default(systemDefaults.createdAt),
});

/** The rules of an attachment record beyond its fields' own, dying or not. */
function attachmentStateRules(record: z.infer<typeof attachmentRecordShape>, ctx: z.RefinementCtx): void {
  notInFinalState(record, ctx);
  retriedGenerationReached(record, ctx);
}

export const attachmentRecordSchema = attachmentRecordShape.superRefine(attachmentStateRules);

/**
 * A dying attachment whose requested device is one EC2 refuses, asked for before device names were
 * held to EC2's (`/dev/xvdea`, `/dev/xvddy`): it is detached and removed all the same, its device
 * no longer mattering. A live one is not valid (the watcher rejects it, with no EC2 call).
 */
const dyingAttachmentRecordSchema = attachmentRecordShape
  .extend({ requestedDevice: formerDeviceNameSchema.optional(), life: z.literal('dying') })
  .superRefine(attachmentStateRules);

export const recordSchema = z.discriminatedUnion('kind', [volumeRecordSchema, attachmentRecordSchema]);

/**
 * The longest key a field path quotes whole (longer than any valid tag key); a longer one (an
 * unknown field or a tag key of many KB) is cut to its start and its end, "…" between them
 * (`shortenMiddle`), so that an answer or a status message naming it stays small, and two long keys
 * that differ at their end only still read apart.
 */
export const MAX_PATH_KEY_CHARS = 200;

/** A key a path writes after a dot: a plain identifier (`sizeGiB`, `__proto__`). */
const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * The path of a field from its zod path segments, under `prefix`: dotted where a key is a plain
 * identifier (`spec.iops`); any other key, bracketed and quoted as a JSON string (`spec.tags["team.name"]`,
 * `spec.tags[""]`), so that a key holding `.` (or empty) names one field only. A key longer than
 * MAX_PATH_KEY_CHARS is quoted by its start and its end (`spec.tags["aaa…zzz"]`). Array indexes stay dotted
 * (`items.0`).
 */
export function fieldPath(segments: readonly PropertyKey[], prefix = ''): string {
  return segments.reduce<string>((path, segment) => {
    if (typeof segment === 'number') return path === '' ? String(segment) : `${path}.${segment}`;
    const key = shortenMiddle(String(segment), MAX_PATH_KEY_CHARS);
    if (!PLAIN_KEY.test(key)) return `${path}[${JSON.stringify(key)}]`;
    return path === '' ? key : `${path}.${key}`;
  }, prefix);
}

/**
 * The paths of the fields `path` (as `fieldPath` writes it) is in, itself first and its root last:
 * `spec.tags["team.name"]`, `spec.tags`, `spec`. A quoted key's `.` and `[` are part of the key.
 */
export function enclosingFieldPaths(path: string): string[] {
  const ends: number[] = [];
  let at = 0;
  while (at < path.length) {
    if (path[at] === '[' && path[at + 1] === '"') {
      // A JSON string: its end is the first `"` not escaped, then `]`.
      let end = at + 2;
      while (end < path.length && path[end] !== '"') end += path[end] === '\\' ? 2 : 1;
      at = end + 2;
    } else {
      if (path[at] === '.') at++;
      while (at < path.length && path[at] !== '.' && path[at] !== '[') at++;
    }
    ends.push(Math.min(at, path.length));
  }
  return ends.reverse().map((end) => path.slice(0, end));
}

/** Unknown fields of one object named one by one, the rest counted: thousands of them get a bounded answer. */
export const MAX_UNKNOWN_FIELDS_LISTED = 50;

/**
 * An issue on each unknown key of the object at `path`, up to MAX_UNKNOWN_FIELDS_LISTED, and one
 * on the object counting the others.
 */
export function unknownFieldIssues(path: readonly PropertyKey[], keys: readonly string[], message = 'is not a known field', prefix = ''): ValidationIssue[] {
  const listed = keys.slice(0, MAX_UNKNOWN_FIELDS_LISTED).map((key) => ({ path: fieldPath([...path, key], prefix), message }));
  const more = keys.length - listed.length;
  return more > 0 ? [...listed, { path: fieldPath(path, prefix), message: `and ${more} more unknown ${more === 1 ? 'field' : 'fields'}` }] : listed;
}

/**
 * Zod issues as field-level messages, in a request as in a record written into the table: an
 * unknown key becomes an issue on that key (`spec.color: is not a known field`).
 */
export function fieldIssues(issues: readonly z.core.$ZodIssue[], prefix = ''): ValidationIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') return unknownFieldIssues(issue.path, issue.keys, undefined, prefix);
    return [{ path: fieldPath(issue.path, prefix), message: issue.message }];
  });
}

/**
 * What a missing field is told, in a request as in a record written into the table: that it is
 * required, and for a field of a few values (`volumeType`, `life`) which ones, where zod's own words
 * would call it an invalid option (or an input of the wrong type, "undefined").
 */
export function missingField(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.input !== undefined) return undefined;
  if (issue.code === 'invalid_type') return 'is required';
  if (issue.code === 'invalid_value') return `is required: one of ${issue.values.map((value) => String(value)).join(', ')}`;
  return undefined;
}

function parseWith<T>(schema: z.ZodType<T>, input: unknown, prefix = ''): Result<T> {
  const parsed = schema.safeParse(input, { error: missingField });
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: fieldIssues(parsed.error.issues, prefix) };
}

/** Validates a spec a client asked for. */
export function validateVolumeSpec(input: unknown): Result<VolumeSpec> {
  return parseWith(volumeSpecSchema, input, 'spec') as Result<VolumeSpec>;
}

/**
 * The attachment records among `records` read from the table that are valid, as parsed (defaults
 * filled in); one that does not parse is left out (its own change reports it).
 */
export function validAttachments(records: readonly unknown[]): AttachmentRecord[] {
  return records.flatMap((raw) => {
    const parsed = parseRecord(raw);
    return parsed.ok && parsed.value.kind === 'attachment' ? [parsed.value] : [];
  });
}

/**
 * Judgements of frozen records, by identity. A record frozen all the way down, as the memory store
 * freezes its items, cannot change, so its judgement cannot either: that store hands the same item
 * to the watcher (its change), the executor (each read) and every batch that lists an instance's
 * attachments, three parses in four of them repeats. Records read from DynamoDB are new objects
 * each time and are parsed each time.
 */
const frozenJudgements = new WeakMap<object, Result<ProvisionerRecord>>();

/**
 * Validates a record read from the table; the system's own fields get defaults when absent. A
 * frozen record is parsed once, and the same frozen result is handed to every caller.
 *
 * @example
 * const parsed = parseRecord(await store.get({ kind: 'volume', volumeId: 'data-01' }));
 * if (!parsed.ok) log.warn('invalid record', { issues: parsed.issues });
 */
export function parseRecord(input: unknown): Result<ProvisionerRecord> {
  if (typeof input !== 'object' || input === null || !Object.isFrozen(input)) return parseRecordAfresh(input);
  let judgement = frozenJudgements.get(input);
  if (judgement === undefined) {
    // Frozen all the way down: shared by every caller, a result one of them changed would change for all.
    judgement = deepFreeze(parseRecordAfresh(input));
    frozenJudgements.set(input, judgement);
  }
  return judgement;
}

function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const field of Object.values(value)) deepFreeze(field);
  return Object.freeze(value);
}

function parseRecordAfresh(input: unknown): Result<ProvisionerRecord> {
  const result = parseRecordFields(input);
  const path = protoKeyPath(input);
  if (path === undefined) return result;
  const issue = { path, message: '"__proto__" cannot be a key' };
  return { ok: false, issues: result.ok ? [issue] : [...result.issues, issue] };
}

function parseRecordFields(input: unknown): Result<ProvisionerRecord> {
  const parsed = parseWith(recordSchema, input) as Result<ProvisionerRecord>;
  const dyingSchema = parsed.ok ? undefined : dyingSchemaOf(input);
  if (dyingSchema === undefined) return parsed;
  const dying = parseWith(dyingSchema, input) as Result<ProvisionerRecord>;
  return dying.ok ? dying : parsed;
}

/**
 * Where a record written by hand holds a key `__proto__` (the API refuses it), as its path. Kept as
 * a key (a JSON source), a record's maps are parsed skipping it without a word, so a tag of that
 * name would never reach the volume; read by the DynamoDB SDK, it becomes the prototype of its map,
 * whose fields validation then reads while change detection does not see them. Tags EC2 reports
 * (`observed.tags`) are the volume's, not the client's input: read as they are.
 */
function protoKeyPath(input: unknown): string | undefined {
  const found = protoKeySegments(input, 0);
  return found && fieldPath(found);
}

/** The segments of `protoKeyPath`, built only once one is found (a record's every parse walks it). */
function protoKeySegments(value: unknown, depth: number, parentKey?: string): Array<string | number> | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (Array.isArray(value)) {
    // JSON and the DynamoDB SDK make plain arrays (no `__proto__` of their own): their items are walked.
    for (let i = 0; i < value.length; i++) {
      const found = protoKeySegments(value[i], depth + 1);
      if (found) return [i, ...found];
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if ((prototype !== Object.prototype && prototype !== null) || Object.hasOwn(value, '__proto__')) return ['__proto__'];
  // A plain object: `for in` walks its own keys only.
  for (const key in value) {
    const field = (value as Record<string, unknown>)[key];
    if (typeof field !== 'object' || field === null) continue;
    if (depth === 1 && parentKey === 'observed' && key === 'tags') continue;
    const found = protoKeySegments(field, depth + 1, key);
    if (found) return [key, ...found];
  }
  return undefined;
}

/** The looser rules a dying record of `input`'s kind is read with (`dyingVolumeRecordSchema`, `dyingAttachmentRecordSchema`), if it is dying. */
function dyingSchemaOf(input: unknown): z.ZodType | undefined {
  if (typeof input !== 'object' || input === null || (input as { life?: unknown }).life !== 'dying') return undefined;
  const kind = (input as { kind?: unknown }).kind;
  return kind === 'volume' ? dyingVolumeRecordSchema : kind === 'attachment' ? dyingAttachmentRecordSchema : undefined;
}

/** Fields fixed at creation: EBS cannot change them on an existing volume (a PATCH may only while nothing is created). */
export const IMMUTABLE_FIELDS = ['availabilityZone', 'placementInstanceId', 'encrypted', 'kmsKeyId', 'snapshotId', 'multiAttach'] as const;

/**
 * Spec fields whose `false` asks for what leaving them out does, as CreateVolume reads them: no
 * encryption asked for (the account's default applies either way) and no Multi-Attach.
 */
const FALSE_IS_DEFAULT_FIELDS: ReadonlyArray<keyof VolumeSpec> = ['encrypted', 'multiAttach'];

/** Whether two values of a spec field ask EBS for the same: equal, or `false` and absent where that is the default. */
export function sameSpecValue(field: keyof VolumeSpec, a: unknown, b: unknown): boolean {
  return sameJson(asAsked(field, a), asAsked(field, b));
}

/** A spec field's value as CreateVolume reads it: `false` where that is the default is no value. */
function asAsked(field: keyof VolumeSpec, value: unknown): unknown {
  return value === false && FALSE_IS_DEFAULT_FIELDS.includes(field) ? undefined : value;
}

/** Fields CreateVolume set that EC2 reports only once observed: the fixed ones, and the tags until a check has seen them. */
const CREATED_FIELDS = [...IMMUTABLE_FIELDS, 'tags'] as const;

/**
 * What separates the reasons in a one-line list of them (`describeValidationIssues`, a record's
 * rejection): no reason the system words holds it, so the list splits back into its reasons.
 */
export const REASON_SEPARATOR = '; ';

/**
 * Issues as one line, e.g. for a status message: `spec.sizeGiB: …; spec.tags: …`. Within the
 * status message bound: the first issues, then how many more (a record written straight into the
 * table may have thousands).
 */
export function describeValidationIssues(issues: readonly ValidationIssue[]): string {
  return shortenList(
    issues.map((issue) => (issue.path ? `${issue.path}: ${issue.message}` : issue.message)),
    REASON_SEPARATOR,
    (count) => `${count} more ${count === 1 ? 'issue' : 'issues'}`,
  );
}

/**
 * What is wrong with changing `current` into `next`: EBS volumes only grow (a magnetic `standard`
 * volume is modified as any other, and a volume may become one: `EBS_LIMITS`), a multi-attach volume
 * keeps its type (and on io1 its size and IOPS too: Elastic Volumes' limitations), and placement,
 * encryption, source snapshot and multi-attach are fixed at creation (tags may change, within the
 * limits `tagsSchema` checks).
 * An IOPS or throughput `next` leaves out is what its type comes with (`provisionedPerformance`:
 * gp3's baseline), not what the volume has. `next` must also be a valid spec on its own.
 */
export function validateSpecChange(current: VolumeSpec, next: VolumeSpec): ValidationIssue[] {
  const own = validateVolumeSpec(next);
  if (!own.ok) return own.issues;
  const issues: ValidationIssue[] = [];
  if (next.sizeGiB < current.sizeGiB) {
    issues.push({ path: 'spec.sizeGiB', message: `EBS volumes can only grow: ${current.sizeGiB} GiB cannot become ${next.sizeGiB} GiB` });
  }
  if (current.multiAttach && next.volumeType !== current.volumeType) {
    issues.push({ path: 'spec.volumeType', message: 'the type of a multi-attach volume cannot be changed' });
  }
  // Elastic Volumes change neither the size nor the IOPS of a Multi-Attach io1 volume (its type neither, above).
  if (current.multiAttach && current.volumeType === 'io1' && next.volumeType === 'io1') {
    if (next.sizeGiB !== current.sizeGiB) issues.push({ path: 'spec.sizeGiB', message: 'the size of a multi-attach io1 volume cannot be changed' });
    if (performanceChange(current, next).iops !== undefined) issues.push({ path: 'spec.iops', message: 'the IOPS of a multi-attach io1 volume cannot be changed' });
  }
  for (const field of IMMUTABLE_FIELDS) {
    if (!sameSpecValue(field, current[field], next[field])) {
      issues.push({ path: `spec.${field}`, message: 'is fixed when the volume is created' });
    }
  }
  return issues;
}

/**
 * Whether the record was written by an earlier version that sent CreateVolume without recording
 * the request: no EC2 id and no `createRequest`, but the AZ and the generation that version wrote
 * just before its call (`availabilityZone`, `observedGeneration`). That CreateVolume may have made
 * a volume; it is repeated, as that version sent it, to learn the id. This version writes both
 * fields with the request and forgets them with it, so none of its records has this shape.
 */
export function createSentUnrecorded(volume: Pick<VolumeRecord, 'ebsVolumeId' | 'createRequest' | 'availabilityZone' | 'observedGeneration'>): boolean {
  return volume.ebsVolumeId === undefined && volume.createRequest === undefined && volume.availabilityZone !== undefined && volume.observedGeneration !== undefined;
}

/**
 * The fields of a volume record the spec-change rule reads. `status` and `modificationSentAt` tell
 * a modification already sent (`sizeEc2MayReach`); without them none is taken to be.
 */
type EbsSide = Pick<VolumeRecord, 'spec' | 'createRequest' | 'ebsVolumeId' | 'observed' | 'availabilityZone' | 'observedGeneration' | 'tagKeysSet'> & {
  status?: Pick<VolumeRecord['status'], 'state'>;
  modificationSentAt?: string | undefined;
};

/**
 * The volume as it is in EBS, the baseline every spec change is judged against: the fields fixed
 * at creation as CreateVolume was asked for them, and size, type, IOPS, throughput and the client's
 * tags as EC2 last reported them (as created, until it has; a record written before tags were
 * observed has its tags as created until a check sees them). Not the previous spec the client wrote: a delete or a
 * retry changes no spec, a spec the system refused would become the next write's baseline, and
 * the reconciler and the executor, which act on the record alone, have no previous spec. Undefined
 * before CreateVolume is asked for: any valid spec may still be created. A volume created (or
 * asked for, `createSentUnrecorded`) before its `createRequest` was kept has its fixed fields
 * judged from its spec as it is.
 */
export function ebsBaseline(volume: EbsSide): VolumeSpec | undefined {
  const created = volume.createRequest?.spec ?? (volume.ebsVolumeId !== undefined || createSentUnrecorded(volume) ? volume.spec : undefined);
  if (!created || !volume.observed) return created;
  const fixed: Partial<VolumeSpec> = {};
  for (const field of CREATED_FIELDS) if (created[field] !== undefined) Object.assign(fixed, { [field]: created[field] });
  return { ...fixed, ...volume.observed };
}

/**
 * The tags to set and the keys to remove so that a volume carrying the client tags `held` carries
 * `wanted`; undefined when it already does (key order does not matter).
 */
export function tagChanges(
  held: Readonly<Record<string, string>> | undefined,
  wanted: Readonly<Record<string, string>> | undefined,
): { set: Record<string, string>; remove: string[] } | undefined {
  const from = held ?? {};
  const to = wanted ?? {};
  const set = Object.fromEntries(Object.entries(to).filter(([key, value]) => from[key] !== value));
  const remove = Object.keys(from).filter((key) => !Object.hasOwn(to, key));
  return Object.keys(set).length === 0 && remove.length === 0 ? undefined : { set, remove };
}

/** Whether EC2 sets a tag key aside for itself or for this system (ownership): never a client's tag. */
export function isReservedTagKey(key: string): boolean {
  return reservedPrefixOf(key) !== undefined;
}

/** The client's tags among all a volume carries: ownership and `aws:` tags left out. */
export function clientTagsOf(tags: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(tags).filter(([key]) => !isReservedTagKey(key)));
}

/**
 * The client tags among `tags` (all a volume carries in EC2) that this system manages on `volume`:
 * the keys its spec names, those it last held (observed, or as created) and those a CreateTags
 * whose result is not recorded may have set (`tagKeysSet`). A key the client
 * removes from the spec is still managed until EC2 no longer holds it, so it is removed there; a
 * tag set outside the system under a key the client never named is none of the system's business
 * and is left as it is (a cost-allocation tag another tool adds, say).
 * For a record whose spec and observed tags name only `team`, EC2's `{ team: 'b', costCenter: '7' }`
 * gives `{ team: 'b' }`.
 */
export function managedTagsOf(volume: EbsSide, tags: Readonly<Record<string, string>>): Record<string, string> {
  const managed = new Set([...Object.keys(volume.spec.tags ?? {}), ...Object.keys(ebsBaseline(volume)?.tags ?? {}), ...(volume.tagKeysSet ?? [])]);
  return Object.fromEntries(Object.entries(clientTagsOf(tags)).filter(([key]) => managed.has(key)));
}

/**
 * What keeps EBS from bringing this volume to `spec` (its own spec unless given): the one rule
 * the API, the watcher, the planner (and so the executor and the reconciler) apply to a spec change.
 */
export function specChangeIssues(
  volume: EbsSide,
  spec: VolumeSpec = volume.spec,
): ValidationIssue[] {
  const baseline = ebsBaseline(volume);
  if (!baseline) {
    const own = validateVolumeSpec(spec);
    return own.ok ? [] : own.issues;
  }
  const issues = validateSpecChange(baseline, spec);
  // EBS cannot shrink what a modification already sent (or the CreateVolume) may leave it at either.
  const reach = sizeEc2MayReach(volume);
  if (reach && reach.sizeGiB > baseline.sizeGiB && spec.sizeGiB < reach.sizeGiB && !issues.some((issue) => issue.path === 'spec.sizeGiB')) {
    issues.unshift({
      path: 'spec.sizeGiB',
      message: `EBS volumes can only grow: ${reach.sizeGiB} GiB cannot become ${spec.sizeGiB} GiB (${reach.why}, and EC2 reports ${baseline.sizeGiB} GiB until it is done)`,
    });
  }
  return issues;
}

/**
 * The largest size EC2 may end with for this volume that it does not report yet, and why: a
 * ModifyVolume sent (the record `modifying`, or one sent whose answer is not recorded) takes it to
 * the spec's size, the spec it was sent for (a spec the client grew since only asks for more, and a
 * smaller one is refused here); a CreateVolume request creates it at its spec's size. Undefined when
 * neither is known: the size EC2 reports (`ebsBaseline`) is all there is. A size below this is a
 * shrink EBS cannot make, however the volume looks now.
 *
 * @example
 * // Grown from 1 to 40 GiB, still modifying:
 * sizeEc2MayReach({ ...volume, status: { state: 'modifying' } }); // { sizeGiB: 40, why: 'a modification is under way, the spec asking for 40 GiB' }
 */
export function sizeEc2MayReach(volume: EbsSide): { sizeGiB: number; why: string } | undefined {
  const modifying = volume.ebsVolumeId !== undefined && (volume.status?.state === 'modifying' || volume.modificationSentAt !== undefined);
  const modified = modifying ? volume.spec.sizeGiB : undefined;
  const created = volume.createRequest?.spec.sizeGiB;
  if (modified !== undefined && (created === undefined || modified >= created))
    return { sizeGiB: modified, why: `a modification is under way, the spec asking for ${modified} GiB` };
  return created !== undefined ? { sizeGiB: created, why: `the volume was created at ${created} GiB` } : undefined;
}
