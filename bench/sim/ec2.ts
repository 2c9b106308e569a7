/**
 * EC2 as both designs see it: the EBS model (the engine's in-memory provider) behind the API's
 * request round trip and its request token buckets. Every call is counted per action; a call
 * finding its bucket empty fails with RequestLimitExceeded and does nothing. The layer also
 * watches the invariants a benchmark run must keep: one volume per lifecycle, never two
 * attachments of one single-attach volume, never two volumes on one device.
 */
import {
  ProviderError,
  type CreateVolumeRequest,
  type ModifyVolumeRequest,
  type Page,
  type ProviderInstance,
  type ProviderModification,
  type ProviderVolume,
  type VolumeProvider,
} from '../../lib/engine/ports.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import type { EventLoop } from './event-loop.js';
import type { Lognormal } from './latency.js';
import type { Random } from './random.js';
import { EC2_ACTIONS, Ec2RateLimiter, type Ec2Action, type Ec2BucketName } from './token-bucket.js';

/**
 * How a client sends its describes by id. The project's EC2 adapter (`lib/aws/ec2-provider.ts`)
 * describes through the `volume-id` / `instance-id` filter, 200 values per request (EC2's filter
 * value limit), paginated (MaxResults 500 / 1000, so 200 ids fit one page): filtered and
 * paginated, EC2 meters these in the standard non-mutating bucket (100 / 20 per second). An SDK
 * waiter sends DescribeVolumes with VolumeIds and no pagination: the unfiltered bucket (50 / 10).
 */
export interface DescribeStyle {
  idsPerRequest: number;
  bucket: Ec2BucketName;
}

/** The provisioner's adapter: `DESCRIBE_IDS_PER_CALL` in lib/aws/ec2-provider.ts, filtered and paginated. */
export const ADAPTER_DESCRIBES: DescribeStyle = { idsPerRequest: 200, bucket: 'nonMutating' };
/** The AWS SDK's volume waiters (and a hand-written client): VolumeIds, unpaginated (DescribeVolumes' 500 ids at most). */
export const SDK_WAITER_DESCRIBES: DescribeStyle = { idsPerRequest: 500, bucket: 'unfilteredNonMutating' };

/** The EBS model behind EC2's round trip and request buckets, counting calls and refusals per action (the header says what it checks). */
export class SimulatedEc2 implements VolumeProvider {
  readonly limiter: Ec2RateLimiter;
  /** Requests per action, throttled ones included (they are requests EC2 received). */
  readonly calls: Record<Ec2Action, number> = Object.fromEntries(EC2_ACTIONS.map((a) => [a, 0])) as Record<Ec2Action, number>;
  /** RequestLimitExceeded answers per action. */
  readonly throttled: Record<Ec2Action, number> = Object.fromEntries(EC2_ACTIONS.map((a) => [a, 0])) as Record<Ec2Action, number>;
  /** EBS volumes created per lifecycle (by the record tag). */
  readonly volumesByLifecycle = new Map<string, Set<string>>();
  /** The last of `volumesByLifecycle`'s volumes per lifecycle (the one EC2 holds for it now). */
  readonly latestVolumeByLifecycle = new Map<string, string>();
  /** Invariant violations seen on attach: a volume on two instances, or two volumes on one device. */
  doubleAttaches = 0;
  /** Which volume last attached on each `instance device`. */
  private readonly activeDevices = new Map<string, string>();

  constructor(
    private readonly loop: EventLoop,
    private readonly random: Random,
    /** The EBS model. */
    readonly ebs: VolumeProvider,
    private readonly roundTrip: Lognormal,
    /** How the client under test sends its describes by id. */
    private readonly describes: DescribeStyle = ADAPTER_DESCRIBES,
  ) {
    this.limiter = new Ec2RateLimiter(loop.now());
  }

  get totalCalls(): number {
    return EC2_ACTIONS.reduce((sum, action) => sum + this.calls[action], 0);
  }

  get totalThrottled(): number {
    return EC2_ACTIONS.reduce((sum, action) => sum + this.throttled[action], 0);
  }

  async createVolume(request: CreateVolumeRequest): Promise<ProviderVolume> {
    const volume = await this.request('CreateVolume', () => this.ebs.createVolume(request));
    const lifecycle = request.tags[OWNERSHIP_TAGS.record];
    if (lifecycle !== undefined) {
      const created = this.volumesByLifecycle.get(lifecycle) ?? new Set<string>();
      if (!created.has(volume.ebsVolumeId)) {
        created.add(volume.ebsVolumeId);
        this.latestVolumeByLifecycle.set(lifecycle, volume.ebsVolumeId);
      }
      this.volumesByLifecycle.set(lifecycle, created);
    }
    return volume;
  }

  async describeVolumes(ebsVolumeIds: string[]): Promise<ProviderVolume[]> {
    const out: ProviderVolume[] = [];
    for (const chunk of chunks(ebsVolumeIds, this.describes.idsPerRequest)) {
      out.push(...(await this.request('DescribeVolumes', () => this.ebs.describeVolumes(chunk), this.describes.bucket)));
    }
    return out;
  }

  async describeVolumeModifications(ebsVolumeIds: string[]): Promise<ProviderModification[]> {
    const out: ProviderModification[] = [];
    // Always by filter (the action has no unfiltered bucket), 200 values per request.
    for (const chunk of chunks(ebsVolumeIds, ADAPTER_DESCRIBES.idsPerRequest)) {
      out.push(...(await this.request('DescribeVolumesModifications', () => this.ebs.describeVolumeModifications(chunk))));
    }
    return out;
  }

  async describeInstances(instanceIds: string[]): Promise<ProviderInstance[]> {
    const out: ProviderInstance[] = [];
    for (const chunk of chunks(instanceIds, this.describes.idsPerRequest)) {
      out.push(...(await this.request('DescribeInstances', () => this.ebs.describeInstances(chunk), this.describes.bucket)));
    }
    return out;
  }

  async attachVolume(request: { ebsVolumeId: string; instanceId: string; device: string }): Promise<void> {
    await this.request('AttachVolume', async () => {
      await this.ebs.attachVolume(request);
      await this.checkAttachInvariants(request);
    });
  }

  async detachVolume(request: { ebsVolumeId: string; instanceId: string; device?: string; force?: boolean }): Promise<void> {
    await this.request('DetachVolume', () => this.ebs.detachVolume(request));
  }

  async deleteVolume(ebsVolumeId: string): Promise<void> {
    await this.request('DeleteVolume', () => this.ebs.deleteVolume(ebsVolumeId));
  }

  async modifyVolume(request: ModifyVolumeRequest): Promise<void> {
    await this.request('ModifyVolume', () => this.ebs.modifyVolume(request));
  }

  async createTags(ebsVolumeId: string, tags: Record<string, string>): Promise<void> {
    await this.request('CreateTags', () => this.ebs.createTags(ebsVolumeId, tags));
  }

  async deleteTags(ebsVolumeId: string, keys: string[]): Promise<void> {
    await this.request('DeleteTags', () => this.ebs.deleteTags(ebsVolumeId, keys));
  }

  async listOwnedVolumes(options: { cursor?: string; limit: number }): Promise<Page<ProviderVolume>> {
    // DescribeVolumes with a tag filter, paginated: the standard non-mutating bucket.
    return this.request('DescribeVolumes', () => this.ebs.listOwnedVolumes(options), 'nonMutating');
  }

  async findOwnedVolumes(recordVolumeId: string): Promise<ProviderVolume[]> {
    return this.request('DescribeVolumes', () => this.ebs.findOwnedVolumes(recordVolumeId), 'nonMutating');
  }

  /** Half the round trip to reach EC2, the bucket check and the action there, half to come back. */
  private async request<T>(action: Ec2Action, act: () => Promise<T>, bucket?: Ec2BucketName): Promise<T> {
    const roundTrip = this.roundTrip.sample(this.random);
    await this.loop.clock.sleep(Math.floor(roundTrip / 2));
    this.calls[action]++;
    if (!this.limiter.admit(action, this.loop.now(), bucket)) {
      this.throttled[action]++;
      await this.loop.clock.sleep(Math.ceil(roundTrip / 2));
      throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    }
    let result: T;
    try {
      result = await act();
    } finally {
      await this.loop.clock.sleep(Math.ceil(roundTrip / 2));
    }
    return result;
  }

  private async checkAttachInvariants(request: { ebsVolumeId: string; instanceId: string; device: string }): Promise<void> {
    const [volume] = await this.ebs.describeVolumes([request.ebsVolumeId]);
    const live = (volume?.attachments ?? []).filter((a) => a.state !== 'detached');
    if (!volume?.multiAttach && new Set(live.map((a) => a.instanceId)).size > 1) this.doubleAttaches++;
    const deviceKey = `${request.instanceId} ${request.device}`;
    const holder = this.activeDevices.get(deviceKey);
    if (holder !== undefined && holder !== request.ebsVolumeId) {
      const [other] = await this.ebs.describeVolumes([holder]);
      if (other?.attachments.some((a) => a.instanceId === request.instanceId && a.device === request.device && a.state !== 'detached')) {
        this.doubleAttaches++;
      }
    }
    this.activeDevices.set(deviceKey, request.ebsVolumeId);
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
