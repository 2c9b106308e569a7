/**
 * VolumeProvider on EC2. Maps the engine's requests to EC2 calls and EC2's answers to the
 * engine's shapes; errors go through the one error table (ec2-errors.ts).
 */
import {
  AttachVolumeCommand,
  CreateTagsCommand,
  CreateVolumeCommand,
  DeleteTagsCommand,
  DeleteVolumeCommand,
  DescribeInstancesCommand,
  DescribeVolumesCommand,
  DescribeVolumesModificationsCommand,
  DetachVolumeCommand,
  ModifyVolumeCommand,
  type EC2Client,
  type Filter,
  type Instance,
  type Volume,
  type VolumeModification,
} from '@aws-sdk/client-ec2';
import type { VolumeType } from '../domain/records.js';
import type {
  CreateVolumeRequest,
  InstanceState,
  ModificationState,
  ModifyVolumeRequest,
  Page,
  ProviderAttachmentState,
  ProviderInstance,
  ProviderModification,
  ProviderVolume,
  ProviderVolumeState,
  VolumeProvider,
} from '../engine/ports.js';
import { OWNERSHIP_TAGS } from '../settings.js';
import { toProviderError } from './ec2-errors.js';

/**
 * Ids per describe call. Describes by id go through the `volume-id` / `instance-id` *filter*
 * rather than the VolumeIds / InstanceIds parameters: with the parameters, a single id that no
 * longer exists (deleted behind our back, or malformed) fails the whole call with
 * InvalidVolume.NotFound / InvalidInstanceID.NotFound, which would let one stale record blind
 * the executor to a whole batch. A filter simply leaves unknown ids out.
 * The cost: filtered describes are paginated (hence MaxResults/NextToken below) and EC2 evaluates
 * the filter over the account's resources in the region, so they are somewhat slower; they count
 * against the same describe rate budget, one request per page. 200 is EC2's limit on filter
 * values in one call (FilterLimitExceeded beyond it), counted over all filters: a second filter
 * beside the ids would need smaller chunks.
 */
const DESCRIBE_IDS_PER_CALL = 200;
/** DescribeVolumes / DescribeVolumesModifications return at most 500 per page. */
const VOLUME_PAGE_MAX = 500;
const INSTANCE_PAGE_MAX = 1000;
/** EC2's lower bound for MaxResults. */
const PAGE_MIN = 5;

function chunks<T>(items: T[], size: number): T[][] {
  const result: T[][] = [];
  for (let start = 0; start < items.length; start += size) result.push(items.slice(start, start + size));
  return result;
}

function tagMap(tags: { Key?: string; Value?: string }[] | undefined): Record<string, string> {
  const map: Record<string, string> = {};
  for (const tag of tags ?? []) if (tag.Key !== undefined) map[tag.Key] = tag.Value ?? '';
  return map;
}

/** EC2's Volume → the engine's view of it. */
export function toProviderVolume(volume: Volume): ProviderVolume {
  return {
    ebsVolumeId: volume.VolumeId ?? '',
    state: (volume.State ?? 'error') as ProviderVolumeState,
    availabilityZone: volume.AvailabilityZone ?? '',
    sizeGiB: volume.Size ?? 0,
    volumeType: (volume.VolumeType ?? 'standard') as VolumeType,
    ...(volume.Iops === undefined ? {} : { iops: volume.Iops }),
    ...(volume.Throughput === undefined ? {} : { throughput: volume.Throughput }),
    multiAttach: volume.MultiAttachEnabled ?? false,
    encrypted: volume.Encrypted ?? false,
    attachments: (volume.Attachments ?? []).map((attachment) => ({
      instanceId: attachment.InstanceId ?? '',
      device: attachment.Device ?? '',
      state: (attachment.State ?? 'attaching') as ProviderAttachmentState,
    })),
    tags: tagMap(volume.Tags),
  };
}

/** EC2's Instance → the engine's view of it (device names from its block device mappings). */
export function toProviderInstance(instance: Instance): ProviderInstance {
  const deviceNames = (instance.BlockDeviceMappings ?? []).flatMap((mapping) =>
    mapping.DeviceName === undefined ? [] : [mapping.DeviceName],
  );
  // The root device is reserved even when its mapping is not listed (instance-store roots).
  if (instance.RootDeviceName !== undefined && !deviceNames.includes(instance.RootDeviceName)) {
    deviceNames.unshift(instance.RootDeviceName);
  }
  return {
    instanceId: instance.InstanceId ?? '',
    availabilityZone: instance.Placement?.AvailabilityZone ?? '',
    state: (instance.State?.Name ?? 'pending') as InstanceState,
    deviceNames,
  };
}

/** EC2's VolumeModification of volume `ebsVolumeId` (the id it listed it under) → the engine's view of it. */
function toProviderModification(ebsVolumeId: string, modification: VolumeModification): ProviderModification {
  return {
    ebsVolumeId,
    state: modification.ModificationState as ModificationState,
    ...(modification.TargetSize === undefined ? {} : { targetSizeGiB: modification.TargetSize }),
    ...(modification.TargetVolumeType === undefined ? {} : { targetVolumeType: modification.TargetVolumeType as VolumeType }),
    ...(modification.TargetIops === undefined ? {} : { targetIops: modification.TargetIops }),
    ...(modification.TargetThroughput === undefined ? {} : { targetThroughput: modification.TargetThroughput }),
    ...(modification.StatusMessage === undefined ? {} : { statusMessage: modification.StatusMessage }),
    ...(modification.StartTime === undefined ? {} : { startedAt: modification.StartTime.getTime() }),
  };
}

export class Ec2VolumeProvider implements VolumeProvider {
  private readonly client: EC2Client;
  private readonly metered: EC2Client;
  private readonly ownerTagValue: string;

  /**
   * `client` serves the describes; `meteredClient` (by default `client`) the mutating calls, which
   * take a token from the shared rate budget before they are sent, so its SDK retries should leave
   * EC2's throttling to the engine (`AwsClients.ec2Metered`).
   */
  constructor(options: { client: EC2Client; meteredClient?: EC2Client; ownerTagValue: string }) {
    this.client = options.client;
    this.metered = options.meteredClient ?? options.client;
    this.ownerTagValue = options.ownerTagValue;
  }

  /** Runs one EC2 call, classifying any failure. */
  private async call<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw toProviderError(error);
    }
  }

  async createVolume(request: CreateVolumeRequest): Promise<ProviderVolume> {
    const { spec } = request;
    // This deployment's owner tag always wins: IAM conditions and leak detection rely on it.
    const tags: Record<string, string> = { ...request.tags, [OWNERSHIP_TAGS.owner]: this.ownerTagValue };
    const volume = await this.call(() =>
      this.metered.send(
        new CreateVolumeCommand({
          ClientToken: request.clientToken,
          AvailabilityZone: request.availabilityZone,
          Size: spec.sizeGiB,
          VolumeType: spec.volumeType,
          Iops: spec.iops,
          Throughput: spec.throughput,
          Encrypted: spec.encrypted,
          KmsKeyId: spec.kmsKeyId,
          SnapshotId: spec.snapshotId,
          MultiAttachEnabled: spec.multiAttach,
          // Sorted: a repeat of the request (same ClientToken) must send the same parameters, and a
          // record read back from the table need not give its tags in the order they were written.
          TagSpecifications: [
            { ResourceType: 'volume', Tags: Object.keys(tags).sort().map((Key) => ({ Key, Value: tags[Key]! })) },
          ],
        }),
      ),
    );
    return toProviderVolume(volume);
  }

  async describeVolumes(ebsVolumeIds: string[]): Promise<ProviderVolume[]> {
    const volumes: ProviderVolume[] = [];
    for (const ids of chunks([...new Set(ebsVolumeIds)], DESCRIBE_IDS_PER_CALL)) volumes.push(...(await this.volumesWhere([{ Name: 'volume-id', Values: ids }])));
    return volumes;
  }

  async describeVolumeModifications(ebsVolumeIds: string[]): Promise<ProviderModification[]> {
    const latest = new Map<string, VolumeModification>();
    for (const ids of chunks([...new Set(ebsVolumeIds)], DESCRIBE_IDS_PER_CALL)) {
      let token: string | undefined;
      do {
        const page = await this.call(() =>
          this.client.send(
            new DescribeVolumesModificationsCommand({
              Filters: [{ Name: 'volume-id', Values: ids }],
              MaxResults: VOLUME_PAGE_MAX,
              NextToken: token,
            }),
          ),
        );
        for (const modification of page.VolumesModifications ?? []) {
          const id = modification.VolumeId;
          // No state: the volume was never modified (EC2 leaves the state null then), so nothing is under way.
          if (id === undefined || modification.ModificationState === undefined) continue;
          const seen = latest.get(id);
          if (seen === undefined || (modification.StartTime?.getTime() ?? 0) >= (seen.StartTime?.getTime() ?? 0)) {
            latest.set(id, modification);
          }
        }
        token = page.NextToken;
      } while (token);
    }
    return [...latest].map(([id, modification]) => toProviderModification(id, modification));
  }

  async describeInstances(instanceIds: string[]): Promise<ProviderInstance[]> {
    const instances: ProviderInstance[] = [];
    for (const ids of chunks([...new Set(instanceIds)], DESCRIBE_IDS_PER_CALL)) {
      let token: string | undefined;
      do {
        const page = await this.call(() =>
          this.client.send(
            new DescribeInstancesCommand({
              Filters: [{ Name: 'instance-id', Values: ids }],
              MaxResults: INSTANCE_PAGE_MAX,
              NextToken: token,
            }),
          ),
        );
        for (const reservation of page.Reservations ?? []) {
          for (const instance of reservation.Instances ?? []) instances.push(toProviderInstance(instance));
        }
        token = page.NextToken;
      } while (token);
    }
    return instances;
  }

  async attachVolume(request: { ebsVolumeId: string; instanceId: string; device: string }): Promise<void> {
    await this.call(() =>
      this.metered.send(
        new AttachVolumeCommand({ VolumeId: request.ebsVolumeId, InstanceId: request.instanceId, Device: request.device }),
      ),
    );
  }

  /** Always names the instance: without it EC2 would detach a multi-attach volume from any instance. `Force` only when asked for. */
  async detachVolume(request: { ebsVolumeId: string; instanceId: string; device?: string; force?: boolean }): Promise<void> {
    await this.call(() =>
      this.metered.send(
        new DetachVolumeCommand({
          VolumeId: request.ebsVolumeId,
          InstanceId: request.instanceId,
          Device: request.device,
          ...(request.force ? { Force: true } : {}),
        }),
      ),
    );
  }

  async deleteVolume(ebsVolumeId: string): Promise<void> {
    await this.call(() => this.metered.send(new DeleteVolumeCommand({ VolumeId: ebsVolumeId })));
  }

  async modifyVolume(request: ModifyVolumeRequest): Promise<void> {
    await this.call(() =>
      this.metered.send(
        new ModifyVolumeCommand({
          VolumeId: request.ebsVolumeId,
          Size: request.sizeGiB,
          VolumeType: request.volumeType,
          Iops: request.iops,
          Throughput: request.throughput,
        }),
      ),
    );
  }

  async createTags(ebsVolumeId: string, tags: Record<string, string>): Promise<void> {
    const Tags = Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
    if (Tags.length === 0) return;
    await this.call(() => this.metered.send(new CreateTagsCommand({ Resources: [ebsVolumeId], Tags })));
  }

  async deleteTags(ebsVolumeId: string, keys: string[]): Promise<void> {
    // A tag given without a value is deleted whatever its value; DeleteTags naming no tag would delete them all.
    const Tags = keys.map((Key) => ({ Key }));
    if (Tags.length === 0) return;
    await this.call(() => this.metered.send(new DeleteTagsCommand({ Resources: [ebsVolumeId], Tags })));
  }

  /** The filter of this deployment's ownership tag: only volumes it made. */
  private ownerFilter() {
    return { Name: `tag:${OWNERSHIP_TAGS.owner}`, Values: [this.ownerTagValue] };
  }

  async listOwnedVolumes(options: { cursor?: string; limit: number }): Promise<Page<ProviderVolume>> {
    const page = await this.call(() =>
      this.client.send(
        new DescribeVolumesCommand({
          Filters: [this.ownerFilter()],
          MaxResults: Math.min(VOLUME_PAGE_MAX, Math.max(PAGE_MIN, Math.floor(options.limit))),
          NextToken: options.cursor,
        }),
      ),
    );
    return {
      items: (page.Volumes ?? []).map(toProviderVolume),
      ...(page.NextToken ? { cursor: page.NextToken } : {}),
    };
  }

  async findOwnedVolumes(recordVolumeId: string): Promise<ProviderVolume[]> {
    return this.volumesWhere([this.ownerFilter(), { Name: `tag:${OWNERSHIP_TAGS.record}`, Values: [recordVolumeId] }]);
  }

  /** Every volume DescribeVolumes finds with `filters`, page after page. */
  private async volumesWhere(filters: Filter[]): Promise<ProviderVolume[]> {
    const volumes: ProviderVolume[] = [];
    let token: string | undefined;
    do {
      const page = await this.call(() => this.client.send(new DescribeVolumesCommand({ Filters: filters, MaxResults: VOLUME_PAGE_MAX, NextToken: token })));
      for (const volume of page.Volumes ?? []) volumes.push(toProviderVolume(volume));
      token = page.NextToken;
    } while (token);
    return volumes;
  }
}
