/**
 * Every request and response shape of the HTTP API, as zod schemas. The handler validates with
 * them and the OpenAPI document is generated from them, so the two cannot drift apart. The volume
 * spec itself is the domain's `volumeSpecSchema`: the API composes it, never restates it.
 * Metadata goes through zod's own `.meta()` (`id` names a component of the document).
 */
import { z } from 'zod';
import { ATTACHMENT_STATES, VOLUME_STATES } from '../domain/records.js';
import { MAX_STATUS_MESSAGE_CHARS } from '../domain/status-message.js';
import { deviceNameSchema, ID_RULES, instanceIdSchema, volumeRecordIdSchema, volumeSpecSchema } from '../domain/validation.js';
import { MUTATING_ACTIONS } from '../engine/config.js';
import { readWholeNumber, wholeNumberMessage, type WholeNumberRange } from './parse.js';

// ---------------------------------------------------------------------------------------------
// Shared pieces
// ---------------------------------------------------------------------------------------------

export const VolumeSpecSchema = volumeSpecSchema.meta({ id: 'VolumeSpec',
  description: 'What the client asks for. Sizes in GiB, throughput in MiB/s.',
  example: { sizeGiB: 20, volumeType: 'gp3', iops: 3000, throughput: 125, availabilityZone: 'us-east-1a', tags: { team: 'storage' } },
});

export const VolumeIdSchema = volumeRecordIdSchema.meta({ id: 'VolumeId',
  description: `The record id of a volume, chosen by the client or generated (\`v-\` and 16 hexadecimal digits; not the EC2 \`vol-…\` id): ${ID_RULES.volumeId}. Case counts: \`Data-01\` and \`data-01\` are two volumes.`,
  example: 'data-01',
});

export const InstanceIdSchema = instanceIdSchema.meta({ id: 'InstanceId',
  description: `An EC2 instance id: ${ID_RULES.instanceId}.`,
  example: 'i-0123456789abcdef0',
});

export const DeviceNameSchema = deviceNameSchema.meta({ id: 'DeviceName',
  description: `Block device name on the instance: ${ID_RULES.deviceName}.`,
  example: '/dev/sdf',
});

const timestamp = z.string().meta({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' });
/**
 * A time the system writes on every record it makes (`createdAt`, `status.updatedAt`): empty on a
 * record written straight into the table without it, which reads as the system would start it.
 */
const recordTime = z.union([timestamp, z.literal('')]).meta({
  description: 'ISO-8601 time; empty (`""`) on a record written straight into the table without it.',
  example: '2026-01-01T12:00:00.000Z',
});
const life = z.enum(['alive', 'dying']).meta({
  description: '`alive` while the volume or attachment is wanted; `dying` once removal was asked for.',
});

function statusSchema<const S extends readonly [string, ...string[]]>(name: string, states: S) {
  return z
    .object({
      state: z.enum(states),
      message: z
        .string()
        .optional()
        .meta({ description: `Why the record is where it is; at most ${MAX_STATUS_MESSAGE_CHARS} characters (a longer reason is shortened: "…" marks where it, or the text from EC2 or an error it quotes, was cut).` }),
      code: z.string().optional().meta({ description: 'Machine-readable error code, e.g. `VolumeInUse`.' }),
      attempts: z.number().int().min(0).meta({ description: 'Failed attempts of the current operation.' }),
      nextAttemptAt: timestamp.optional(),
      updatedAt: recordTime,
      operationStartedAt: timestamp.optional(),
    })
    .meta({ id: name, description: 'The status the system keeps true.' });
}

export const VolumeStatusSchema = statusSchema('VolumeStatus', VOLUME_STATES);
export const AttachmentStatusSchema = statusSchema('AttachmentStatus', ATTACHMENT_STATES);

// ---------------------------------------------------------------------------------------------
// Responses
// ---------------------------------------------------------------------------------------------

const RateWaitSchema = z
  .object({
    action: z.enum(MUTATING_ACTIONS),
    seconds: z.number().int().min(1),
  })
  .meta({
    id: 'RateWait',
    description:
      "Present while the record's next EC2 call waits in line for the account's EC2 request tokens (a burst books them ahead): the call, and about how many seconds the line is long now. Calls are served in the order they asked, so one already in line starts within this time.",
    example: { action: 'CreateVolume', seconds: 42 },
  });

export const AttachmentSchema = z
  .object({
    volumeId: VolumeIdSchema,
    instanceId: InstanceIdSchema,
    life,
    requestedDevice: DeviceNameSchema.optional(),
    forceDetach: z.boolean().optional().meta({ description: 'The detach is forced (`DELETE …?force=true`): EC2 detaches without letting the instance flush its caches.' }),
    generation: z.number().int().min(1).meta({ description: 'Bumped by a retry after a terminal error; the `ETag` names it (with `createdAt`).' }),
    device: z.string().optional().meta({ description: 'Device EC2 shows the volume attached as: the one the system allocated, or the name it was attached again under outside the system.' }),
    status: AttachmentStatusSchema,
    rateWait: RateWaitSchema.optional(),
    createdAt: recordTime,
  })
  .meta({ id: 'Attachment' });

export const VolumeSchema = z
  .object({
    volumeId: VolumeIdSchema,
    spec: VolumeSpecSchema,
    life,
    generation: z.number().int().min(1).meta({ description: 'Bumped on every spec change and retry; the `ETag` names it (with `createdAt`).' }),
    status: VolumeStatusSchema,
    ebsVolumeId: z.string().optional().meta({ description: 'The EC2 volume id, once created.', example: 'vol-0123456789abcdef0' }),
    availabilityZone: z.string().optional().meta({ description: 'The AZ the volume is (or will be) in.' }),
    observedGeneration: z.number().int().optional().meta({ description: 'The generation EC2 currently matches.' }),
    observed: z
      .object({
        sizeGiB: z.number(),
        volumeType: z.string(),
        iops: z.number().optional(),
        throughput: z.number().optional(),
        tags: z.record(z.string(), z.string()).optional().meta({ description: "The client's tags EC2 holds under the keys this system manages (those the spec names or last named; ownership tags and tags set outside under other keys left out), once a check has seen them." }),
      })
      .optional()
      .meta({ description: 'What EC2 reports for the volume.' }),
    rateWait: RateWaitSchema.optional(),
    createdAt: recordTime,
  })
  .meta({ id: 'Volume' });

/** What a list says of a record in the table that is not valid. */
const INVALID_RECORD_DESCRIPTION =
  'written into the table outside the API. The system does nothing with it, and every request that names it ' +
  'answers 409 `invalid-record` with the reasons; `status` is what the watcher writes on it: `error`, code `InvalidRecord`, the reasons in `message`. ' +
  'Correct it in the table, or remove it there.';

const invalidMark = z.literal(true).meta({ description: 'Present, and true, only on a record that is not valid.' });

export const InvalidAttachmentSchema = z
  .object({
    volumeId: z.string(),
    instanceId: z.string(),
    invalid: invalidMark,
    status: AttachmentStatusSchema,
  })
  .meta({ id: 'InvalidAttachment', description: `An attachment record that is not valid, ${INVALID_RECORD_DESCRIPTION}` });

export const InvalidVolumeSchema = z
  .object({
    volumeId: z.string(),
    invalid: invalidMark,
    status: VolumeStatusSchema,
  })
  .meta({
    id: 'InvalidVolume',
    description:
      `A volume record that is not valid, ${INVALID_RECORD_DESCRIPTION} One exception: a live volume whose faults are all ones a delete does not use ` +
      'may be deleted (`DELETE /volumes/{volumeId}` marks it dying), and the `detail` of a 409 naming it says so.',
  });

export const VolumeDetailsSchema = VolumeSchema.extend({
  attachments: z.array(z.union([AttachmentSchema, InvalidAttachmentSchema])),
}).meta({ id: 'VolumeDetails' });

export const VolumeListSchema = z
  .object({
    items: z.array(z.union([VolumeSchema, InvalidVolumeSchema])),
    cursor: z.string().optional().meta({ description: 'Pass as `cursor` to get the next page; absent on the last page.' }),
  })
  .meta({ id: 'VolumeList' });

export const AttachmentListSchema = z.object({ items: z.array(z.union([AttachmentSchema, InvalidAttachmentSchema])) }).meta({ id: 'AttachmentList' });

export const ProblemSchema = z
  .object({
    type: z.string().meta({ example: 'urn:ebs-provisioner:problem:validation-failed' }),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ path: z.string(), message: z.string() })).meta({
      description: 'Field-level messages; `path` is dotted from the body root (a key that is not a plain identifier bracketed and quoted: `spec.tags["team.name"]`), or names the parameter.',
    }),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details, served as application/problem+json.' });

// ---------------------------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------------------------

export const VolumeParamsSchema = z.strictObject({ volumeId: VolumeIdSchema });
export const AttachmentParamsSchema = z.strictObject({ volumeId: VolumeIdSchema, instanceId: InstanceIdSchema });
export const InstanceParamsSchema = z.strictObject({ instanceId: InstanceIdSchema });

export const LIST_LIMIT = { default: 50, max: 100 } as const;

/**
 * A query parameter holding a whole number in `range`, written in plain decimal digits; anything
 * else gets the one message that says the range. Documented as an integer with its bounds.
 */
function wholeNumberParameter(range: Required<WholeNumberRange>) {
  const read = (value: unknown) => (typeof value === 'string' ? (readWholeNumber(value, range) ?? value) : value);
  return z.preprocess(read, z.number({ error: wholeNumberMessage(range) }).int().min(range.min).max(range.max));
}

export const ListVolumesQuerySchema = z.strictObject({
  limit: wholeNumberParameter({ min: 1, max: LIST_LIMIT.max })
    .default(LIST_LIMIT.default)
    .meta({ description: `Page size, 1-${LIST_LIMIT.max}.` }),
  cursor: z.string().min(1).max(4096).optional().meta({ description: 'From the previous page.' }),
  state: z.enum(VOLUME_STATES).optional().meta({ description: 'Only volumes in this state.' }),
  instanceId: InstanceIdSchema.optional().meta({ description: 'Only volumes with an attachment to this instance.' }),
});

/** A query parameter holding `true` or `false`, as written; anything else gets the one message that says so. */
function booleanParameter() {
  const read = (value: unknown) => (value === 'true' ? true : value === 'false' ? false : value);
  return z.preprocess(read, z.boolean({ error: 'must be true or false' }));
}

export const DetachQuerySchema = z.strictObject({
  force: booleanParameter()
    .default(false)
    .meta({
      description:
        'Detach with EC2\'s `Force`: a last resort for a detach EC2 cannot finish (the volume busy on the instance, an impaired instance). ' +
        'The instance gets no chance to flush its file system caches or metadata: data not yet written may be lost and the file system ' +
        'corrupted (check and repair it before using the volume again). On an attachment already being detached, the detach under way is forced.',
    }),
});

export const AttachToSchema = z
  .strictObject({ instanceId: InstanceIdSchema, device: DeviceNameSchema.optional() })
  .meta({ id: 'AttachTo',
    description: 'Attach the new volume to this instance; when the spec names neither availabilityZone nor placementInstanceId, the volume goes in its AZ.',
  });

export const CreateVolumeRequestSchema = z
  .strictObject({
    volumeId: VolumeIdSchema.optional().meta({
      description: 'Choose the id to make the request safely repeatable; generated when absent.',
    }),
    spec: VolumeSpecSchema,
    attachTo: AttachToSchema.optional(),
  })
  .meta({ id: 'CreateVolumeRequest' });

const specShape = volumeSpecSchema.shape;
/** The spec fields a PATCH may name: every one. Those fixed at creation only until CreateVolume is asked for. */
export const PATCHABLE_FIELDS = [
  'sizeGiB',
  'volumeType',
  'iops',
  'throughput',
  'tags',
  'availabilityZone',
  'placementInstanceId',
  'snapshotId',
  'encrypted',
  'kmsKeyId',
  'multiAttach',
] as const;
/** Fields a PATCH may change; `null` removes an optional one (JSON merge patch). */
export const PatchVolumeRequestSchema = z
  .strictObject({
    sizeGiB: specShape.sizeGiB.optional(),
    volumeType: specShape.volumeType.optional(),
    iops: specShape.iops.unwrap().nullable().optional(),
    throughput: specShape.throughput.unwrap().nullable().optional(),
    tags: specShape.tags.unwrap().nullable().optional(),
    // Fixed at creation: they may change only while no volume exists and none is being created.
    availabilityZone: specShape.availabilityZone.unwrap().nullable().optional(),
    placementInstanceId: specShape.placementInstanceId.unwrap().nullable().optional(),
    snapshotId: specShape.snapshotId.unwrap().nullable().optional(),
    encrypted: specShape.encrypted.unwrap().nullable().optional(),
    kmsKeyId: specShape.kmsKeyId.unwrap().nullable().optional(),
    multiAttach: specShape.multiAttach.unwrap().nullable().optional(),
  })
  .refine((body) => Object.keys(body).length > 0, {
    message: `give at least one of ${PATCHABLE_FIELDS.join(', ')}`,
    // A body of unknown fields only is empty once they are dropped; its own issue says what is wrong.
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ id: 'PatchVolumeRequest',
    minProperties: 1,
    description:
      'Grow the volume or change its type, IOPS, throughput or tags. `null` clears iops or throughput: a gp3 volume goes back to its baseline (3000 IOPS, 125 MiB/s). `tags` replaces the client tags as a whole (`null` or `{}` removes them all; tags set outside this system under other keys stay); the ownership tags (`ebs-provisioner:`) and `aws:` keys cannot be set. ' +
      'The fields fixed at creation (availabilityZone, placementInstanceId, snapshotId, encrypted, kmsKeyId, multiAttach; `null` clears one) may change only while no EC2 volume exists and no CreateVolume is recorded, e.g. to fix an AZ or a snapshot EC2 refused; afterwards changing one is a 400 saying it is fixed. One placement replaces the other: an availabilityZone drops the placementInstanceId, and the other way round.',
  });

export const PutAttachmentRequestSchema = z
  .strictObject({ device: DeviceNameSchema.optional() })
  .meta({ id: 'PutAttachmentRequest', description: 'Optional; the system picks a free device when absent.' });

export type CreateVolumeRequest = z.output<typeof CreateVolumeRequestSchema>;
export type PatchVolumeRequest = z.output<typeof PatchVolumeRequestSchema>;
export type PutAttachmentRequest = z.output<typeof PutAttachmentRequestSchema>;
export type ListVolumesQuery = z.output<typeof ListVolumesQuerySchema>;
export type VolumeView = z.output<typeof VolumeSchema>;
export type VolumeDetails = z.output<typeof VolumeDetailsSchema>;
export type AttachmentView = z.output<typeof AttachmentSchema>;
export type InvalidVolumeView = z.output<typeof InvalidVolumeSchema>;
export type InvalidAttachmentView = z.output<typeof InvalidAttachmentSchema>;
/** A volume as a list shows it: valid, or marked `invalid`. */
export type VolumeListItem = VolumeView | InvalidVolumeView;
/** An attachment as a list shows it: valid, or marked `invalid`. */
export type AttachmentListItem = AttachmentView | InvalidAttachmentView;
/** What a view says of a call waiting in line for EC2's request tokens. */
export type RateWait = z.output<typeof RateWaitSchema>;
export type VolumeList = z.output<typeof VolumeListSchema>;
export type AttachmentList = z.output<typeof AttachmentListSchema>;
