/**
 * Workloads: N volume lifecycles (create → attach to one of M instances → detach → delete),
 * requested all at once (burst) or at a steady rate, driven the same way against either design.
 */
import type { EventLoop } from './sim/event-loop.js';

/** One lifecycle a client asks for. */
export interface VolumeRequest {
  /** The client's volume id (the record's id). */
  id: string;
  instanceId: string;
  availabilityZone: string;
  /** A device name free on the instance for this request's slot (the naive design needs one). */
  device: string;
  sizeGiB: number;
}

export interface InstanceSpec {
  instanceId: string;
  availabilityZone: string;
  maxAttachments: number;
}

/** What the workload driver is told by a design. */
export interface LifecycleObserver {
  /** The client can see the volume attached (status written). */
  attached(id: string): void;
  /** Everything is gone: the records are removed. */
  finished(id: string): void;
  /** The design gave up on this lifecycle (terminal error status). */
  failed(id: string, reason: string): void;
}

/** A design under test, as a client uses it. */
export interface DesignUnderTest {
  readonly name: string;
  /** Writes what a client writes to ask for the volume and its attachment. */
  request(volume: VolumeRequest): Promise<void>;
  /** Writes what a client writes to ask for detach and delete. */
  release(id: string): Promise<void>;
}

export type ArrivalPattern = { kind: 'burst' } | { kind: 'steady'; perSecond: number };

export interface WorkloadSpec {
  name: string;
  volumes: number;
  arrival: ArrivalPattern;
  /** How long a client keeps a volume attached before asking for its removal. */
  holdMs: number;
}

/** Device names /dev/sdf … /dev/sdz: 21 slots, more than one instance can hold anyway. */
const DEVICE_SLOTS = Array.from({ length: 21 }, (_, i) => `/dev/sd${String.fromCharCode('f'.charCodeAt(0) + i)}`);
const AZS = ['us-east-1a', 'us-east-1b', 'us-east-1c'];
/** Volumes per instance: within Nitro's 28 attachment slots after the root volume and a network interface. */
export const VOLUMES_PER_INSTANCE = 20;
export const NITRO_MAX_ATTACHMENTS = 27;

/** The instances a workload of `volumes` needs so that no instance is ever asked for more than it can hold. */
export function instancesFor(volumes: number): InstanceSpec[] {
  const count = Math.max(3, Math.ceil(volumes / VOLUMES_PER_INSTANCE));
  return Array.from({ length: count }, (_, i) => ({
    instanceId: `i-${(0x1000000 + i).toString(16).padStart(17, '0')}`,
    availabilityZone: AZS[i % AZS.length]!,
    maxAttachments: NITRO_MAX_ATTACHMENTS,
  }));
}

/** The requests of a workload: volume i goes to instance i mod M, in its own device slot. */
export function requestsFor(volumes: number, instances: InstanceSpec[]): VolumeRequest[] {
  return Array.from({ length: volumes }, (_, i) => {
    const instance = instances[i % instances.length]!;
    const slot = Math.floor(i / instances.length);
    return {
      id: `vol-req-${String(i).padStart(6, '0')}`,
      instanceId: instance.instanceId,
      availabilityZone: instance.availabilityZone,
      device: DEVICE_SLOTS[slot % DEVICE_SLOTS.length]!,
      sizeGiB: 8,
    };
  });
}

export interface LifecycleTimes {
  requestedAt: number;
  attachedAt?: number;
  releasedAt?: number;
  finishedAt?: number;
  /** When the design gave up on it. */
  failedAt?: number;
  failure?: string;
}

/** Drives a workload against a design and records what happened to each lifecycle, in virtual time. */
export class WorkloadDriver implements LifecycleObserver {
  readonly lifecycles = new Map<string, LifecycleTimes>();
  /** Lifecycles requested that have neither finished nor failed yet. */
  readonly underWay = new Set<string>();
  finishedCount = 0;
  failedCount = 0;
  startedAt = 0;
  lastFinishedAt = 0;
  /** Lifecycles the workload will request in all. */
  readonly planned: number;

  constructor(
    private readonly loop: EventLoop,
    private readonly spec: WorkloadSpec,
    private readonly requests: VolumeRequest[],
    private design?: DesignUnderTest,
  ) {
    this.planned = requests.length;
  }

  attach(design: DesignUnderTest): void {
    this.design = design;
  }

  /** Schedules every arrival; `done()` holds once every lifecycle finished or failed. */
  start(): void {
    const design = this.design;
    if (!design) throw new Error('design: not attached');
    this.startedAt = this.loop.now();
    this.requests.forEach((request, i) => {
      const offset = this.spec.arrival.kind === 'burst' ? 0 : (i * 1000) / this.spec.arrival.perSecond;
      this.loop.after(offset, () => {
        this.lifecycles.set(request.id, { requestedAt: this.loop.now() });
        this.underWay.add(request.id);
        void design.request(request).catch((error: unknown) => this.failed(request.id, `request: ${String(error)}`));
      });
    });
  }

  done(): boolean {
    return this.finishedCount + this.failedCount === this.planned;
  }

  attached(id: string): void {
    const times = this.lifecycles.get(id);
    if (!times || times.attachedAt !== undefined) return;
    times.attachedAt = this.loop.now();
    this.loop.after(this.spec.holdMs, () => {
      times.releasedAt = this.loop.now();
      void this.design!.release(id).catch((error: unknown) => this.failed(id, `release: ${String(error)}`));
    });
  }

  finished(id: string): void {
    const times = this.lifecycles.get(id);
    if (!times || times.finishedAt !== undefined || times.failure !== undefined) return;
    times.finishedAt = this.loop.now();
    this.lastFinishedAt = Math.max(this.lastFinishedAt, times.finishedAt);
    this.underWay.delete(id);
    this.finishedCount++;
  }

  failed(id: string, reason: string): void {
    const times = this.lifecycles.get(id);
    if (!times || times.finishedAt !== undefined || times.failure !== undefined) return;
    times.failure = reason;
    times.failedAt = this.loop.now();
    this.lastFinishedAt = Math.max(this.lastFinishedAt, this.loop.now());
    this.underWay.delete(id);
    this.failedCount++;
  }
}
