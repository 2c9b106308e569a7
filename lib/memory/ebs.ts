import {
  EBS_LIMITS,
  GP3_BASELINE,
  gp2BaselineIops,
  MODIFICATION_WINDOW_MS,
  MODIFICATIONS_PER_WINDOW,
  MULTI_ATTACH_MAX_INSTANCES,
  provisionedPerformance,
} from '../domain/ebs-limits.js';
import type { VolumeSpec, VolumeType } from '../domain/records.js';
import { OWNERSHIP_TAGS } from '../settings.js';
import { canonicalJson } from '../domain/canonical-json.js';
import {
  ProviderError,
  type Clock,
  type CreateVolumeRequest,
  type InstanceState,
  type ModifyVolumeRequest,
  type Page,
  type ProviderInstance,
  type ProviderModification,
  type ProviderVolume,
  type VolumeProvider,
} from '../engine/ports.js';

/** EC2 API actions, named as EC2 names them (counters, fault injection, rate limits). */
export type Ec2Action =
  | 'CreateVolume'
  | 'DescribeVolumes'
  | 'DescribeVolumesModifications'
  | 'DescribeInstances'
  | 'AttachVolume'
  | 'DetachVolume'
  | 'DeleteVolume'
  | 'ModifyVolume'
  | 'CreateTags'
  | 'DeleteTags';

/** The asynchronous steps EBS takes, each with its own duration. */
export type TimedStep = 'create' | 'attach' | 'detach' | 'delete' | 'modify' | 'optimize';
export type StepDuration = number | ((step: TimedStep) => number);

/** Typical EBS durations, in milliseconds. */
export const DEFAULT_EBS_TIMINGS: Record<TimedStep, number> = {
  create: 2_000,
  attach: 2_000,
  detach: 2_000,
  delete: 1_000,
  modify: 60_000,
  optimize: 300_000,
};

interface ModelAttachment {
  instanceId: string;
  device: string;
  state: 'attaching' | 'attached' | 'detaching';
  until: number;
}

interface ModelModification {
  state: 'modifying' | 'optimizing' | 'completed' | 'failed';
  /** Why it failed, as DescribeVolumesModifications reports it. */
  statusMessage?: string;
  startedAt: number;
  optimizingAt: number;
  completedAt: number;
  target: { sizeGiB: number; volumeType: VolumeType; iops?: number; throughput?: number };
}

interface ModelVolume {
  ebsVolumeId: string;
  availabilityZone: string;
  sizeGiB: number;
  volumeType: VolumeType;
  iops?: number;
  throughput?: number;
  multiAttach: boolean;
  encrypted: boolean;
  tags: Record<string, string>;
  state: 'creating' | 'available' | 'deleting' | 'error';
  until: number;
  attachments: ModelAttachment[];
  /** The latest modification, and the one before it (listed until the latest is). */
  modification?: ModelModification;
  previousModification?: ModelModification;
  /** The modifications started within EC2's window, oldest first: those not failed count toward its limit. */
  recentModifications?: ModelModification[];
}

interface ModelInstance {
  instanceId: string;
  availabilityZone: string;
  state: InstanceState;
  rootDevices: string[];
  maxAttachments: number;
}

/** A volume's size, type and performance as CreateVolume asks for them or a ModifyVolume would leave them. */
type Configuration = { sizeGiB: number; volumeType: VolumeType; iops?: number; throughput?: number; multiAttach?: boolean };

/**
 * The IOPS EC2 describes a volume (or a modification's target) with, under `field`: those it was
 * given, or on gp2, which takes none, its baseline, which follows its size.
 */
function describedIops<F extends string>(volume: { sizeGiB: number; volumeType: VolumeType; iops?: number }, field: F): { [K in F]?: number } {
  const iops = volume.volumeType === 'gp2' ? gp2BaselineIops(volume.sizeGiB) : volume.iops;
  return (iops !== undefined ? { [field]: iops } : {}) as { [K in F]?: number };
}

/** A ratio as EC2 writes it in its refusals: at most 3 decimals. */
const ratio = (value: number): number => Number(value.toFixed(3));

/**
 * Throws what EC2 answers a configuration its type does not allow, by the limits of ebs-limits.ts
 * (which cites EC2's): size, IOPS and throughput within range and within their ratios (at the
 * type's least IOPS any size will do), no parameter only other types take, the IOPS io1 and io2
 * require, Multi-Attach on io1 and io2 only.
 */
function checkConfiguration(volume: Configuration): void {
  const { sizeGiB, volumeType: type, iops, throughput } = volume;
  const limits = EBS_LIMITS[type];
  const refused = (code: string, message: string) => new ProviderError('invalid-request', code, message);
  if (sizeGiB < limits.sizeGiB.min) throw refused('InvalidParameterValue', `Volume of size ${sizeGiB}GiB is too small; minimum is ${limits.sizeGiB.min}GiB.`);
  if (sizeGiB > limits.sizeGiB.max) throw refused('InvalidParameterValue', `Volume of size ${sizeGiB}GiB is too large; maximum is ${limits.sizeGiB.max}GiB.`);
  if (iops !== undefined && !limits.iops) throw refused('InvalidParameterCombination', `The parameter iops is not supported for ${type} volumes.`);
  if (throughput !== undefined && !limits.throughput) throw refused('InvalidParameterCombination', `The parameter throughput is not supported for ${type} volumes.`);
  if (volume.multiAttach && !limits.multiAttach) throw refused('InvalidParameterCombination', `Multi-Attach is not supported for ${type} volumes.`);
  if (limits.iops && iops === undefined && limits.iops.required) throw refused('MissingParameter', `The request must contain the parameter iops for ${type} volumes.`);
  if (limits.iops && iops !== undefined) {
    if (iops < limits.iops.min) throw refused('InvalidParameterValue', `Volume iops of ${iops} is too low; minimum is ${limits.iops.min}.`);
    if (iops > limits.iops.max) throw refused('InvalidParameterValue', `Volume iops of ${iops} is too high; maximum is ${limits.iops.max}.`);
    const perGiB = limits.iops.maxPerGiB;
    if (perGiB !== undefined && iops > limits.iops.min && iops > sizeGiB * perGiB) {
      throw refused('InvalidParameterValue', `Iops to volume size ratio of ${ratio(iops / sizeGiB)} is too high; maximum is ${perGiB}.`);
    }
  }
  if (limits.throughput && throughput !== undefined) {
    if (throughput < limits.throughput.min) throw refused('InvalidParameterValue', `Volume throughput of ${throughput} is too low; minimum is ${limits.throughput.min}.`);
    if (throughput > limits.throughput.max) throw refused('InvalidParameterValue', `Volume throughput of ${throughput} is too high; maximum is ${limits.throughput.max}.`);
    const perIops = limits.throughput.maxPerIops;
    const provisioned = iops ?? limits.iops?.included;
    if (perIops !== undefined && provisioned !== undefined && throughput > limits.throughput.min && throughput > provisioned * perIops) {
      throw refused('InvalidParameterValue', `Throughput to iops ratio of ${ratio(throughput / provisioned)} is too high; maximum is ${perIops} MiBps per iops.`);
    }
  }
}

/**
 * Throws for a modification Elastic Volumes does not make to a Multi-Attach volume (Amazon EBS User
 * Guide, "Modify an Amazon EBS volume using Elastic Volumes operations", Limitations): no type
 * change of a Multi-Attach io2 volume; no type, size or Provisioned IOPS change of a Multi-Attach
 * io1 volume. A value equal to the volume's own is no change. EC2's error code and message for
 * these are not documented: the model answers with `InvalidParameterCombination` (an
 * invalid request, as the engine classes any refused parameter) in its own words.
 */
function checkMultiAttachModification(volume: ModelVolume, request: ModifyVolumeRequest): void {
  if (!volume.multiAttach) return;
  const refused = (what: string) =>
    new ProviderError('invalid-request', 'InvalidParameterCombination', `The ${what} of Multi-Attach enabled ${volume.volumeType} volume ${volume.ebsVolumeId} cannot be modified.`);
  const typeChanged = request.volumeType !== undefined && request.volumeType !== volume.volumeType;
  if (typeChanged) throw refused('volume type');
  if (volume.volumeType !== 'io1') return;
  if (request.sizeGiB !== undefined && request.sizeGiB !== volume.sizeGiB) throw refused('size');
  if (request.iops !== undefined && request.iops !== volume.iops) throw refused('IOPS');
}

/**
 * EBS in memory, on an injected clock: volumes go creating → available, attachments attaching →
 * attached and detaching → gone, deletes and modifications take time, and every rule EC2 enforces
 * that the engine relies on answers with EC2's own error code and message.
 *
 * @example
 * const ebs = new MemoryEbs({ clock, ownerTagValue: 'prod' });
 * ebs.addInstance({ instanceId: 'i-0123456789abcdef0', availabilityZone: 'us-east-1a' });
 */
export class MemoryEbs implements VolumeProvider {
  private readonly clock: Clock;
  private readonly ownerTagValue: string;
  private readonly timings: Record<TimedStep, StepDuration>;
  private readonly volumesById = new Map<string, ModelVolume>();
  /** Volumes that have had an attachment to each instance (pruned as they are found detached), so lookups by instance need no scan. */
  private readonly volumesByInstance = new Map<string, Set<string>>();
  private readonly instances = new Map<string, ModelInstance>();
  /** The availability zones EBS has here: those given and those of the instances. */
  private readonly zones = new Set<string>();
  private readonly tokens = new Map<string, { volumeId: string; fingerprint: string }>();
  private readonly faults = new Map<Ec2Action, { error: ProviderError; times: number }>();
  /** `<ebsVolumeId>/<instanceId>` pairs a plain detach cannot finish (`keepBusy`). */
  private readonly busy = new Set<string>();
  private nextVolume = 0;
  /** Calls per EC2 action, successful or not. */
  readonly calls: Record<Ec2Action, number> = {
    CreateVolume: 0,
    DescribeVolumes: 0,
    DescribeVolumesModifications: 0,
    DescribeInstances: 0,
    AttachVolume: 0,
    DetachVolume: 0,
    DeleteVolume: 0,
    ModifyVolume: 0,
    CreateTags: 0,
    DeleteTags: 0,
  };
  /** Runs before every call and may throw (the simulator's rate limits). */
  beforeCall?: (action: Ec2Action) => void;
  /**
   * How long after ModifyVolume accepted a modification DescribeVolumesModifications starts
   * listing it (EC2's eventual consistency); until then it lists the one before, if any. 0: at once.
   */
  modificationListingDelayMs = 0;

  /**
   * `availabilityZones`: the zones of the region besides those of the instances added, which it
   * knows too; CreateVolume in any other is refused, as EC2 refuses a zone it does not have.
   */
  constructor(options: {
    clock: Clock;
    ownerTagValue: string;
    timings?: Partial<Record<TimedStep, StepDuration>>;
    availabilityZones?: readonly string[];
  }) {
    this.clock = options.clock;
    this.ownerTagValue = options.ownerTagValue;
    this.timings = { ...DEFAULT_EBS_TIMINGS, ...options.timings };
    for (const zone of options.availabilityZones ?? []) this.zones.add(zone);
  }

  /**
   * Adds an instance. Defaults: `state` running; `deviceNames` (the devices it has besides the
   * volumes attached here, such as its root volume) `['/dev/xvda']`; `maxAttachments`, the volumes
   * AttachVolume attaches here before it answers `AttachmentLimitExceeded`, 27: EC2's EBS volumes
   * for a Nitro instance with only its primary network interface (most share 28 attachments among
   * network interfaces, EBS volumes and NVMe instance store volumes; Amazon EBS volume limits for
   * Amazon EC2 instances). EC2 counts an EBS root volume among those 27; `deviceNames` are not
   * counted here, so the model takes one volume more than EC2 beside an EBS root volume.
   */
  addInstance(instance: {
    instanceId: string;
    availabilityZone: string;
    state?: InstanceState;
    deviceNames?: string[];
    maxAttachments?: number;
  }): void {
    this.zones.add(instance.availabilityZone);
    this.instances.set(instance.instanceId, {
      instanceId: instance.instanceId,
      availabilityZone: instance.availabilityZone,
      state: instance.state ?? 'running',
      rootDevices: instance.deviceNames ?? ['/dev/xvda'],
      maxAttachments: instance.maxAttachments ?? 27,
    });
  }

  setInstanceState(instanceId: string, state: InstanceState): void {
    const instance = this.instances.get(instanceId);
    if (!instance) throw new Error(`no instance ${instanceId}`);
    instance.state = state;
  }

  /**
   * Keeps the volume busy on the instance (mounted, in use, or the instance impaired): a plain
   * DetachVolume leaves it `detaching` for good; a forced one detaches it as usual.
   */
  keepBusy(ebsVolumeId: string, instanceId: string): void {
    this.busy.add(`${ebsVolumeId}/${instanceId}`);
  }

  /** Makes the next `times` calls of `action` fail with `error`. */
  failNext(action: Ec2Action, error: ProviderError, times = 1): void {
    this.faults.set(action, { error, times });
  }

  /** Drops every failure `failNext` set that has not happened yet. */
  clearFaults(): void {
    this.faults.clear();
  }

  /**
   * Makes the modification under way on the volume fail, as EC2 sometimes does: it reports state
   * `failed` with `message` and the volume keeps its previous size and type. Only a modification
   * still `modifying` can fail (later, the new configuration is already in place).
   */
  failModification(ebsVolumeId: string, message: string): void {
    const modification = this.settled(ebsVolumeId)?.modification;
    if (modification?.state !== 'modifying') throw new Error(`no modification of ${ebsVolumeId} is modifying`);
    modification.state = 'failed';
    modification.statusMessage = message;
  }

  /** A volume as EC2 would describe it now, or undefined when it does not exist. */
  volume(ebsVolumeId: string): ProviderVolume | undefined {
    const found = this.settled(ebsVolumeId);
    return found ? this.describe(found) : undefined;
  }

  /** A volume's state as EC2 would describe it now (`in-use` while attached), or undefined when it does not exist. */
  volumeState(ebsVolumeId: string): ProviderVolume['state'] | undefined {
    const found = this.settled(ebsVolumeId);
    if (!found) return undefined;
    return found.state === 'available' && found.attachments.length > 0 ? 'in-use' : found.state;
  }

  volumes(): ProviderVolume[] {
    return [...this.volumesById.keys()].flatMap((id) => this.volume(id) ?? []);
  }

  /**
   * Puts a volume in state `error`, as EC2 does when its storage fails: its data is lost, it can
   * no longer be attached or modified, only deleted.
   */
  failVolume(ebsVolumeId: string): void {
    const volume = this.settled(ebsVolumeId);
    if (!volume) throw new Error(`no volume ${ebsVolumeId}`);
    volume.state = 'error';
  }

  /** Deletes a volume out of band, as a person in the console could. */
  deleteBehindBack(ebsVolumeId: string): void {
    this.volumesById.delete(ebsVolumeId);
  }

  /** Replaces a volume's tags out of band (all of them, ownership tags included), as a person in the console could. */
  retagBehindBack(ebsVolumeId: string, tags: Record<string, string>): void {
    const volume = this.settled(ebsVolumeId);
    if (!volume) throw new Error(`no volume ${ebsVolumeId}`);
    volume.tags = { ...tags };
  }

  async createVolume(request: CreateVolumeRequest): Promise<ProviderVolume> {
    this.enter('CreateVolume');
    // Like EC2, a repeat is the same request when its parameters are, whatever order their fields come in.
    const fingerprint = canonicalJson([request.availabilityZone, request.spec, request.tags]);
    const previous = this.tokens.get(request.clientToken);
    if (previous) {
      if (previous.fingerprint !== fingerprint) {
        throw new ProviderError(
          'idempotency-mismatch',
          'IdempotentParameterMismatch',
          'Arguments on this idempotent request are inconsistent with arguments used in previous request(s).',
        );
      }
      const existing = this.volume(previous.volumeId);
      if (existing) return existing;
      // EC2 will not answer with a volume it has deleted (deleted outside, or by EC2 itself for a key it could not use).
      throw new ProviderError(
        'idempotency-mismatch',
        'IdempotentParameterMismatch',
        'The client token you have provided is associated with a resource that is already deleted. Please use a different client token.',
      );
    }
    if (!this.zones.has(request.availabilityZone)) {
      throw new ProviderError('invalid-request', 'InvalidZone.NotFound', `The zone '${request.availabilityZone}' does not exist.`);
    }
    const spec: VolumeSpec = request.spec;
    checkConfiguration(spec);
    // The same limit as CreateTags': a volume carries at most 50 tags, its TagSpecification included.
    if (Object.keys(request.tags).length > MemoryEbs.MAX_TAGS) {
      throw new ProviderError('limit-exceeded', 'TagLimitExceeded', 'The maximum number of tags for a resource has been reached.');
    }
    const ebsVolumeId = `vol-${(++this.nextVolume).toString(16).padStart(17, '0')}`;
    const volume: ModelVolume = {
      ebsVolumeId,
      availabilityZone: request.availabilityZone,
      sizeGiB: spec.sizeGiB,
      volumeType: spec.volumeType,
      // What EC2 provisions and describes: gp3's baseline when the spec names no IOPS or throughput.
      ...provisionedPerformance(spec),
      multiAttach: spec.multiAttach ?? false,
      encrypted: spec.encrypted ?? false,
      tags: { ...request.tags },
      state: 'creating',
      until: this.clock.now() + this.duration('create'),
      attachments: [],
    };
    this.volumesById.set(ebsVolumeId, volume);
    this.tokens.set(request.clientToken, { volumeId: ebsVolumeId, fingerprint });
    return this.describe(volume);
  }

  async describeVolumes(ebsVolumeIds: string[]): Promise<ProviderVolume[]> {
    this.enter('DescribeVolumes');
    return [...new Set(ebsVolumeIds)].flatMap((id) => this.volume(id) ?? []);
  }

  async describeVolumeModifications(ebsVolumeIds: string[]): Promise<ProviderModification[]> {
    this.enter('DescribeVolumesModifications');
    const now = this.clock.now();
    return [...new Set(ebsVolumeIds)].flatMap((id) => {
      const volume = this.settled(id);
      if (!volume) return [];
      const latest = volume.modification;
      const modification = latest && now - latest.startedAt >= this.modificationListingDelayMs ? latest : volume.previousModification;
      if (!modification) return [];
      return [
        {
          ebsVolumeId: id,
          state: modification.state,
          targetSizeGiB: modification.target.sizeGiB,
          targetVolumeType: modification.target.volumeType,
          ...describedIops(modification.target, 'targetIops'),
          ...(modification.target.throughput !== undefined ? { targetThroughput: modification.target.throughput } : {}),
          ...(modification.statusMessage !== undefined ? { statusMessage: modification.statusMessage } : {}),
          startedAt: modification.startedAt,
        },
      ];
    });
  }

  async describeInstances(instanceIds: string[]): Promise<ProviderInstance[]> {
    this.enter('DescribeInstances');
    return [...new Set(instanceIds)].flatMap((id) => {
      const instance = this.instances.get(id);
      if (!instance) return [];
      return [
        {
          instanceId: id,
          availabilityZone: instance.availabilityZone,
          state: instance.state,
          deviceNames: [...instance.rootDevices, ...this.attachmentsOn(id).map((a) => a.device)],
        },
      ];
    });
  }

  async attachVolume(request: { ebsVolumeId: string; instanceId: string; device: string }): Promise<void> {
    this.enter('AttachVolume');
    const volume = this.mustExist(request.ebsVolumeId);
    const instance = this.instances.get(request.instanceId);
    if (!instance) {
      throw new ProviderError('not-found', 'InvalidInstanceID.NotFound', `The instance ID '${request.instanceId}' does not exist`);
    }
    // AttachVolume: "Attaches an EBS volume to a running or stopped instance". A terminated
    // instance is still there for EC2 (DescribeInstances lists it) and refused as in any other state.
    if (instance.state !== 'running' && instance.state !== 'stopped') {
      throw new ProviderError('incorrect-state', 'IncorrectInstanceState', `The instance '${instance.instanceId}' is '${instance.state}', not 'running' or 'stopped'.`);
    }
    if (volume.state !== 'available') {
      throw new ProviderError('incorrect-state', 'IncorrectState', `Volume '${volume.ebsVolumeId}' is in the '${volume.state}' state.`);
    }
    if (volume.attachments.some((a) => a.instanceId === request.instanceId) || (!volume.multiAttach && volume.attachments.length > 0)) {
      throw new ProviderError('already-attached', 'VolumeInUse', `${volume.ebsVolumeId} is already attached to an instance`);
    }
    // Multi-Attach: at most 16 instances at once, those still attaching or detaching included.
    if (volume.attachments.length >= MULTI_ATTACH_MAX_INSTANCES) {
      throw new ProviderError(
        'limit-exceeded',
        'AttachmentLimitExceeded',
        `Volume ${volume.ebsVolumeId} is attached to the maximum number of instances (${MULTI_ATTACH_MAX_INSTANCES}).`,
      );
    }
    if (volume.availabilityZone !== instance.availabilityZone) {
      throw new ProviderError(
        'zone-mismatch',
        'InvalidVolume.ZoneMismatch',
        `The volume '${volume.ebsVolumeId}' is not in the same availability zone as instance '${instance.instanceId}'`,
      );
    }
    const used = [...instance.rootDevices, ...this.attachmentsOn(instance.instanceId).map((a) => a.device)];
    if (used.includes(request.device)) {
      throw new ProviderError(
        'device-in-use',
        'InvalidParameterValue',
        `Invalid value '${request.device}' for unixDevice. Attachment point ${request.device} is already in use`,
      );
    }
    if (this.attachmentsOn(instance.instanceId).length >= instance.maxAttachments) {
      throw new ProviderError('limit-exceeded', 'AttachmentLimitExceeded', `Attachment limit exceeded for instance ${instance.instanceId}.`);
    }
    volume.attachments.push({
      instanceId: request.instanceId,
      device: request.device,
      state: 'attaching',
      until: this.clock.now() + this.duration('attach'),
    });
    let onInstance = this.volumesByInstance.get(request.instanceId);
    if (!onInstance) this.volumesByInstance.set(request.instanceId, (onInstance = new Set()));
    onInstance.add(volume.ebsVolumeId);
  }

  async detachVolume(request: { ebsVolumeId: string; instanceId: string; device?: string; force?: boolean }): Promise<void> {
    this.enter('DetachVolume');
    const volume = this.mustExist(request.ebsVolumeId);
    const attachment = volume.attachments.find((a) => a.instanceId === request.instanceId);
    if (!attachment || (request.device !== undefined && attachment.device !== request.device)) {
      // As EC2 answers: a volume attached nowhere is in the wrong state; one attached elsewhere has no such attachment.
      // Only "in the 'available' state" says it is detached (ec2-errors.ts): creating or failed, it is in the wrong state.
      if (volume.attachments.length === 0) {
        throw new ProviderError(volume.state === 'available' ? 'not-attached' : 'incorrect-state', 'IncorrectState', `Volume '${volume.ebsVolumeId}' is in the '${volume.state}' state.`);
      }
      throw new ProviderError('not-attached', 'InvalidAttachment.NotFound', `Volume '${volume.ebsVolumeId}' is not attached to instance '${request.instanceId}'${request.device !== undefined ? ` as ${request.device}` : ''}.`);
    }
    const stuck = this.busy.has(`${volume.ebsVolumeId}/${request.instanceId}`) && !request.force;
    // A forced detach finishes one that is stuck; a plain one leaves a detach under way as it is.
    if (attachment.state === 'detaching' && (stuck || attachment.until !== Number.POSITIVE_INFINITY)) return;
    attachment.state = 'detaching';
    attachment.until = stuck ? Number.POSITIVE_INFINITY : this.clock.now() + this.duration('detach');
  }

  async deleteVolume(ebsVolumeId: string): Promise<void> {
    this.enter('DeleteVolume');
    const volume = this.mustExist(ebsVolumeId);
    if (volume.attachments.length > 0) {
      throw new ProviderError('incorrect-state', 'VolumeInUse', `Volume ${ebsVolumeId} is currently attached to ${volume.attachments[0]!.instanceId}`);
    }
    if (volume.state === 'deleting') return;
    if (volume.state !== 'available' && volume.state !== 'error') {
      throw new ProviderError('incorrect-state', 'IncorrectState', `The volume '${ebsVolumeId}' is '${volume.state}'.`);
    }
    volume.state = 'deleting';
    volume.until = this.clock.now() + this.duration('delete');
  }

  async modifyVolume(request: ModifyVolumeRequest): Promise<void> {
    this.enter('ModifyVolume');
    const volume = this.mustExist(request.ebsVolumeId);
    if (volume.state !== 'available') {
      throw new ProviderError('incorrect-state', 'IncorrectState', `The volume '${volume.ebsVolumeId}' is '${volume.state}'.`);
    }
    const now = this.clock.now();
    const last = volume.modification;
    if (last && (last.state === 'modifying' || last.state === 'optimizing')) {
      throw new ProviderError(
        'modification-in-progress',
        'IncorrectModificationState',
        `Cannot modify volume ${volume.ebsVolumeId} as it is in '${last.state}' state. Try again later.`,
      );
    }
    // At most 4 modifications per volume in any 24 hours, counted from their starts; a failed one does not count.
    const recent = (volume.recentModifications ?? []).filter((modification) => now - modification.startedAt < MODIFICATION_WINDOW_MS);
    volume.recentModifications = recent;
    const counted = recent.filter((modification) => modification.state !== 'failed');
    if (counted.length >= MODIFICATIONS_PER_WINDOW) {
      const nextAt = counted.at(-MODIFICATIONS_PER_WINDOW)!.startedAt + MODIFICATION_WINDOW_MS;
      throw new ProviderError(
        'modification-cooldown',
        'VolumeModificationRateExceeded',
        `You've reached the maximum modification rate per volume limit. You can modify volume ${volume.ebsVolumeId} again after ${new Date(nextAt).toISOString()}.`,
      );
    }
    if (request.sizeGiB !== undefined && request.sizeGiB < volume.sizeGiB) {
      throw new ProviderError(
        'invalid-request',
        'InvalidParameterValue',
        `New size cannot be smaller than existing size of ${volume.sizeGiB} GiB for volume ${volume.ebsVolumeId}.`,
      );
    }
    checkMultiAttachModification(volume, request);
    const optimizingAt = now + this.duration('modify');
    const volumeType = request.volumeType ?? volume.volumeType;
    // What ModifyVolume leaves out: the volume's own on the same type; on a type change the new
    // type's default (IOPS 3,000 on gp3, io1 and io2; throughput 125 on gp3), none on a type without it.
    const sameType = volumeType === volume.volumeType;
    const iops = request.iops ?? (sameType ? volume.iops : EBS_LIMITS[volumeType].iops ? GP3_BASELINE.iops : undefined);
    const throughput = request.throughput ?? (sameType ? volume.throughput : EBS_LIMITS[volumeType].throughput ? GP3_BASELINE.throughput : undefined);
    const target = {
      sizeGiB: request.sizeGiB ?? volume.sizeGiB,
      volumeType,
      ...(iops !== undefined ? { iops } : {}),
      ...(throughput !== undefined ? { throughput } : {}),
    };
    checkConfiguration(target);
    volume.previousModification = last;
    volume.modification = { state: 'modifying', startedAt: now, optimizingAt, completedAt: optimizingAt + this.duration('optimize'), target };
    recent.push(volume.modification);
  }

  /**
   * EC2 allows 50 tags per resource (EC2 tag restrictions); CreateVolume's tags and CreateTags
   * beyond them are refused with `TagLimitExceeded`, the code EC2's error reference gives for that
   * limit. The wording is this model's: EC2's own message is not documented.
   */
  static readonly MAX_TAGS = 50;

  async createTags(ebsVolumeId: string, tags: Record<string, string>): Promise<void> {
    this.enter('CreateTags');
    const volume = this.mustExist(ebsVolumeId);
    const next = { ...volume.tags, ...tags };
    if (Object.keys(next).length > MemoryEbs.MAX_TAGS) {
      throw new ProviderError('limit-exceeded', 'TagLimitExceeded', `The maximum number of tags for resource ${ebsVolumeId} has been reached.`);
    }
    volume.tags = next;
  }

  async deleteTags(ebsVolumeId: string, keys: string[]): Promise<void> {
    this.enter('DeleteTags');
    const volume = this.mustExist(ebsVolumeId);
    volume.tags = Object.fromEntries(Object.entries(volume.tags).filter(([key]) => !keys.includes(key)));
  }

  /**
   * A page of owned volumes in the order they were created; the cursor is the last volume listed,
   * so, as with EC2's NextToken, a volume deleted from an earlier page makes the next one skip none.
   */
  async listOwnedVolumes(options: { cursor?: string; limit: number }): Promise<Page<ProviderVolume>> {
    this.enter('DescribeVolumes');
    // Volume ids count up in creation order (fixed width), as the volumes are kept.
    const after = options.cursor;
    const owned = this.volumes().filter((v) => v.tags[OWNERSHIP_TAGS.owner] === this.ownerTagValue && (after === undefined || v.ebsVolumeId > after));
    const items = owned.slice(0, options.limit);
    const last = items.at(-1);
    return last && items.length < owned.length ? { items, cursor: last.ebsVolumeId } : { items };
  }

  async findOwnedVolumes(recordVolumeId: string): Promise<ProviderVolume[]> {
    this.enter('DescribeVolumes');
    return this.volumes().filter((v) => v.tags[OWNERSHIP_TAGS.owner] === this.ownerTagValue && v.tags[OWNERSHIP_TAGS.record] === recordVolumeId);
  }

  private enter(action: Ec2Action): void {
    this.calls[action]++;
    this.beforeCall?.(action);
    const fault = this.faults.get(action);
    if (fault) {
      if (--fault.times <= 0) this.faults.delete(action);
      throw fault.error;
    }
  }

  private duration(step: TimedStep): number {
    const timing = this.timings[step];
    return Math.max(0, typeof timing === 'function' ? timing(step) : timing);
  }

  private mustExist(ebsVolumeId: string): ModelVolume {
    const volume = this.settled(ebsVolumeId);
    if (!volume) throw new ProviderError('not-found', 'InvalidVolume.NotFound', `The volume '${ebsVolumeId}' does not exist.`);
    return volume;
  }

  /** Applies every transition whose time has come, then returns the volume (undefined once deleted). */
  private settled(ebsVolumeId: string): ModelVolume | undefined {
    const volume = this.volumesById.get(ebsVolumeId);
    if (!volume) return undefined;
    const now = this.clock.now();
    if (volume.state === 'creating' && now >= volume.until) volume.state = 'available';
    if (volume.state === 'deleting' && now >= volume.until) {
      this.volumesById.delete(ebsVolumeId);
      return undefined;
    }
    // A plain loop: this runs on every look at a volume.
    let detached = false;
    for (const a of volume.attachments) {
      if (now < a.until) continue;
      if (a.state === 'attaching') a.state = 'attached';
      else if (a.state === 'detaching') detached = true;
    }
    if (detached) volume.attachments = volume.attachments.filter((a) => !(a.state === 'detaching' && now >= a.until));
    const modification = volume.modification;
    if (modification) {
      if (modification.state === 'modifying' && now >= modification.optimizingAt) {
        modification.state = 'optimizing';
        // A type without IOPS or throughput drops the old type's.
        delete volume.iops;
        delete volume.throughput;
        Object.assign(volume, modification.target);
      }
      if (modification.state === 'optimizing' && now >= modification.completedAt) modification.state = 'completed';
    }
    return volume;
  }

  private attachmentsOn(instanceId: string): ModelAttachment[] {
    const ids = this.volumesByInstance.get(instanceId);
    if (!ids) return [];
    const found: ModelAttachment[] = [];
    for (const id of [...ids]) {
      const attachments = this.settled(id)?.attachments.filter((a) => a.instanceId === instanceId) ?? [];
      if (attachments.length === 0) ids.delete(id);
      found.push(...attachments);
    }
    return found;
  }

  private describe(volume: ModelVolume): ProviderVolume {
    return {
      ebsVolumeId: volume.ebsVolumeId,
      state: volume.state === 'available' && volume.attachments.length > 0 ? 'in-use' : volume.state,
      availabilityZone: volume.availabilityZone,
      sizeGiB: volume.sizeGiB,
      volumeType: volume.volumeType,
      ...describedIops(volume, 'iops'),
      ...(volume.throughput !== undefined ? { throughput: volume.throughput } : {}),
      multiAttach: volume.multiAttach,
      encrypted: volume.encrypted,
      attachments: volume.attachments.map(({ instanceId, device, state }) => ({ instanceId, device, state })),
      tags: { ...volume.tags },
    };
  }
}
