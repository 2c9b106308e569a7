/**
 * The records a client writes and the system keeps true.
 *
 * One table, single-table design: a volume item (`VOLUME#<volumeId>` / `VOLUME`) and one
 * attachment item per instance (`VOLUME#<volumeId>` / `ATTACHMENT#<instanceId>`). The client owns
 * `spec`, `life`, `generation`, `requestedDevice` and `forceDetach`; the system owns `status`, `ebsVolumeId`,
 * `createRequest`, `device`, `instanceSeen`, `volumeCreatedAt`, `forceDetachSentAt`, `observedGeneration`,
 * `retriedGeneration`, `lastModificationStartedAt`, `earlierModificationStarts`,
 * `modificationSentAt`, `failedModifications`, `tagKeysSet`, `claim` and `version`. Neither
 * side writes the other's fields.
 */

export const VOLUME_TYPES = ['gp2', 'gp3', 'io1', 'io2', 'st1', 'sc1', 'standard'] as const;
export type VolumeType = (typeof VOLUME_TYPES)[number];

/** `alive` while the client wants the thing to exist; `dying` once it asked for removal. */
export type Life = 'alive' | 'dying';

/** The part of a spec a ModifyVolume changes. */
export type ModificationTarget = Pick<VolumeSpec, 'sizeGiB' | 'volumeType' | 'iops' | 'throughput'>;

/** What a client asks for. Sizes in GiB, throughput in MiB/s. */
export interface VolumeSpec {
  sizeGiB: number;
  volumeType: VolumeType;
  iops?: number;
  throughput?: number;
  /** Explicit placement. When absent, `placementInstanceId` decides the AZ. */
  availabilityZone?: string;
  /** "Put the volume in the AZ of this instance." */
  placementInstanceId?: string;
  encrypted?: boolean;
  kmsKeyId?: string;
  snapshotId?: string;
  tags?: Record<string, string>;
  multiAttach?: boolean;
}

export const VOLUME_STATES = [
  'pending',
  'creating',
  'available',
  'in-use',
  'modifying',
  'deleting',
  'deleted',
  'error',
] as const;
export type VolumeState = (typeof VOLUME_STATES)[number];

export const ATTACHMENT_STATES = ['pending', 'attaching', 'attached', 'detaching', 'detached', 'error'] as const;
export type AttachmentState = (typeof ATTACHMENT_STATES)[number];

/** The status the system writes: what a person reads to know where a record stands and why. */
export interface Status<S extends string> {
  state: S;
  /** Human-readable reason, e.g. the EC2 error message or "waiting for volume vol-…". */
  message?: string;
  /** Machine-readable error code, e.g. the EC2 error code `VolumeInUse`. */
  code?: string;
  /** Failed attempts of the current operation; 0 after a success. */
  attempts: number;
  /** ISO-8601 time of the next scheduled attempt, when one is scheduled. */
  nextAttemptAt?: string;
  /** ISO-8601 time of this status write. */
  updatedAt: string;
  /** ISO-8601 time the current operation first started; bounds its maximum age. */
  operationStartedAt?: string;
}

/** A lease on a record: only its holder may act on EC2 for it until `expiresAt` (epoch ms). */
export interface Claim {
  owner: string;
  expiresAt: number;
}

export interface VolumeRecord {
  kind: 'volume';
  volumeId: string;
  spec: VolumeSpec;
  life: Life;
  /** Bumped by the client on every spec change; the system acts on the newest. */
  generation: number;
  status: Status<VolumeState>;
  /** The EC2 volume id once CreateVolume answered. */
  ebsVolumeId?: string;
  /**
   * The CreateVolume request made (token, AZ, spec), written just before the call: what a repeated
   * call sends again until EC2 answers with a volume id, and what EBS fixed at creation (placement,
   * encryption, snapshot, multi-attach; the tags until EC2 is seen to hold others). Dropped when EC2 turns the request down, when EC2
   * will not repeat it (IdempotentParameterMismatch: a volume it made, if any, is left to the leak
   * report), or when the volume is gone, so that the next create sends the spec as it is then.
   */
  createRequest?: CreateRequest;
  /** The AZ the volume was (or will be) created in, once resolved; forgotten with `createRequest`. */
  availabilityZone?: string;
  /** The generation the EC2 volume currently matches (from its CreateVolume on; none while no volume exists). */
  observedGeneration?: number;
  /**
   * The generation whose retry the system has made: a change that bumped the generation of a record
   * in `error` is a retry once, so a late or repeated delivery of it, after the retry failed again,
   * retries nothing.
   */
  retriedGeneration?: number;
  /**
   * Size/type/iops/throughput EC2 currently reports, once known, and the client's tags it holds
   * (ownership tags left out; absent on records written before tags were observed, until a check).
   */
  observed?: ModificationTarget & Pick<VolumeSpec, 'tags'>;
  /**
   * ISO-8601 time EC2 started the volume's latest modification, or a time it certainly started by,
   * as far as the system knows: its own ModifyVolume (answered then), one it found under way or
   * learnt from DescribeVolumesModifications, or, when EC2 refused a modification for its rate
   * limit, the latest start EC2 names (the refusal's time when none explains it), taken as the start
   * of all of EC2's 4 modifications in the window. With `earlierModificationStarts`, the one source
   * of that limit (the status only shows the wait): EC2 allows a 5th modification 24 hours after the
   * 4th most recent start. A time later than now (written straight into the table) counts as now and
   * is replaced by it. Forgotten with the EC2 volume; a failed modification's start is dropped (a
   * failed one does not count), the latest earlier one taking its place.
   */
  lastModificationStartedAt?: string;
  /**
   * Modifications EC2 accepted and then failed (DescribeVolumesModifications `failed`) toward
   * `target`, the size, type and performance the spec asked for. They count toward the attempt
   * budget whatever the status says between them (a throttled call, a wait, a change of tags), so a
   * change EC2 fails every time ends in `error`; another target counts afresh. Cleared once EC2
   * holds the spec's size, type and performance, or with the EC2 volume.
   */
  failedModifications?: { target: ModificationTarget; count: number };
  /**
   * ISO-8601 starts of the volume's modifications before `lastModificationStartedAt` that EC2 still
   * counts (within 24 hours of the latest), oldest first, at most 3; each, likewise, a time the
   * modification certainly started by. Kept and forgotten with `lastModificationStartedAt`.
   */
  earlierModificationStarts?: string[];
  /**
   * ISO-8601 time a ModifyVolume was sent whose answer is not recorded (written with the claim
   * before the call): EC2 may be modifying the volume toward it, describing the old values until
   * it optimizes, so the spec is not taken as held from `observed` alone; the modify operation looks
   * at EC2's modifications first. Cleared by the write of EC2's answer (accepted, or refused for
   * certain), or once a look finds no modification under way that the record does not follow.
   */
  modificationSentAt?: string;
  /**
   * Client tag keys a CreateTags was sent to set and whose result is not yet recorded in
   * `observed.tags`: managed like those (`managedTagsOf`), so a key the client drops meanwhile is
   * still removed from EC2. Written with the claim before the call, cleared by the next write of
   * what EC2 holds.
   */
  tagKeysSet?: string[];
  claim?: Claim;
  /** Incremented by every write; optimistic concurrency for system writes. */
  version: number;
  createdAt: string;
}

/**
 * A CreateVolume request, recorded before it is sent. Until EC2 answers it with a volume id it is
 * repeated exactly (same token, same parameters), never replaced, whatever the spec has become:
 * EC2 then answers with the one volume the token made, so an answer lost to a timeout, a crash or
 * an error status makes no second volume. Once answered it stays, as what EBS fixed at creation
 * (the baseline spec changes are judged against). It is dropped when EC2 refuses it (then no volume
 * exists under its token), when EC2 will not repeat it (IdempotentParameterMismatch: a volume it
 * made, if any, is left to the reconciler's leak report) and when the volume is gone from EC2.
 */
export interface CreateRequest {
  /** Unique to the record's incarnation and the generation it was made for (`createVolumeClientToken`). */
  clientToken: string;
  availabilityZone: string;
  /** The spec as sent; what the client changed since is applied as a modification once the volume exists. */
  spec: VolumeSpec;
}

export interface AttachmentRecord {
  kind: 'attachment';
  volumeId: string;
  instanceId: string;
  life: Life;
  /** Device the client asked for, e.g. `/dev/sdf`; the system picks one when absent. */
  requestedDevice?: string;
  /**
   * The client's last resort for a detach EC2 cannot finish (the volume busy on the instance, an
   * impaired instance): while dying, DetachVolume is sent with `Force`, which does not let the
   * instance flush its caches and may lose data or corrupt its file system. Ignored while alive.
   */
  forceDetach?: boolean;
  /**
   * Bumped by the client to retry an attachment in `error`, as for volumes. Absent on records
   * written before attachments had one; it reads as 1.
   */
  generation?: number;
  /**
   * The generation whose retry the system has made: a change that bumped the generation of a record
   * in `error` is a retry once, so a late or repeated delivery of it, after the retry failed again,
   * retries nothing.
   */
  retriedGeneration?: number;
  status: Status<AttachmentState>;
  /** Device the system allocated and EC2 accepted. */
  device?: string;
  /**
   * The instance as EC2 described it for this attach, kept so that other executor environments
   * attaching to the same instance need not describe it again while the description is fresh.
   */
  instanceSeen?: InstanceSeen;
  /**
   * The `createdAt` of the volume record whose EC2 volume the last attach was for: tells that
   * record from one written again under the same id since (`volumeRecordLost`), whatever clock
   * stamped its `createdAt` (a client writing the table stamps it with its own).
   */
  volumeCreatedAt?: string;
  /**
   * ISO-8601 time a forced DetachVolume was sent for this attachment (written with the claim before
   * the call): a detach already under way when force was asked for gets one forced call, not one
   * per check, nor a second from a late or repeated message. Cleared when the call failed (refused,
   * or without an answer: EC2 may not have had it), so that its retry sends it again, and when a
   * plain detach starts (the record set back to alive since the forced call): that detach has had none.
   * Later than the detach's `operationStartedAt`, which EC2's acceptance moves to it, the call may
   * never have been made (its invocation stopped): it is made again once that claim is gone.
   */
  forceDetachSentAt?: string;
  claim?: Claim;
  version: number;
  createdAt: string;
}

/** What EC2 said of an instance when a volume was attached to it. */
export interface InstanceSeen {
  availabilityZone: string;
  state: 'running' | 'stopped';
  /** Devices in the instance's mappings that no attachment record held: its root device, volumes attached by others. */
  otherDevices: string[];
  /** When EC2 described the instance (epoch ms). */
  describedAt: number;
}

export type ProvisionerRecord = VolumeRecord | AttachmentRecord;

export type RecordKey =
  | { kind: 'volume'; volumeId: string }
  | { kind: 'attachment'; volumeId: string; instanceId: string };

export function keyOf(record: ProvisionerRecord): RecordKey {
  return record.kind === 'volume'
    ? { kind: 'volume', volumeId: record.volumeId }
    : { kind: 'attachment', volumeId: record.volumeId, instanceId: record.instanceId };
}

/**
 * Whether every id of `key` is non-empty, as an operation message's key must be: an item written
 * into the table with a bare sort key (`ATTACHMENT#`) names a record no message can carry.
 */
export function keyNamesRecord(key: RecordKey): boolean {
  return key.volumeId !== '' && (key.kind !== 'attachment' || key.instanceId !== '');
}

/** Stable string form of a key, usable as a map key and in logs: `volume/v1`, `attachment/v1/i-0abc`. */
export function keyString(key: RecordKey): string {
  return key.kind === 'volume' ? `volume/${key.volumeId}` : `attachment/${key.volumeId}/${key.instanceId}`;
}

/** Table keys of the single-table design. */
export function tableKey(key: RecordKey): { pk: string; sk: string } {
  return key.kind === 'volume'
    ? { pk: `VOLUME#${key.volumeId}`, sk: 'VOLUME' }
    : { pk: `VOLUME#${key.volumeId}`, sk: `ATTACHMENT#${key.instanceId}` };
}

/** Keys of an attachment in the index that lists an instance's attachments: `INSTANCE#<instanceId>`, `VOLUME#<volumeId>`. */
export function instanceIndexKeyValues(instanceId: string, volumeId: string): { partition: string; sort: string } {
  return { partition: `INSTANCE#${instanceId}`, sort: `VOLUME#${volumeId}` };
}
