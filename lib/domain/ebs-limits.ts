import type { VolumeType } from './records.js';

/** What EBS accepts for one volume type. Sizes in GiB, throughput in MiB/s. */
export interface VolumeTypeLimits {
  sizeGiB: { min: number; max: number };
  /** Absent: the type takes no IOPS parameter. `included`: what EBS provisions when none is named. */
  iops?: { min: number; max: number; required: boolean; maxPerGiB?: number; included?: number };
  /** Absent: the type takes no throughput parameter. `included`: what EBS provisions when none is named. */
  throughput?: { min: number; max: number; maxPerIops?: number; included?: number };
  multiAttach: boolean;
}

/** gp3's included baseline, used when a gp3 spec names no IOPS or throughput. */
export const GP3_BASELINE = { iops: 3_000, throughput: 125 } as const;

/**
 * Current EBS limits per volume type.
 *
 * Sources:
 * - EC2 API reference, CreateVolume `Size`, `Iops` and `Throughput` (as shipped in the API model of
 *   @aws-sdk/client-ec2 3.1169): gp2 1–16,384 GiB; gp3 1–65,536 GiB, 3,000–80,000 IOPS,
 *   125–2,000 MiB/s; io1 4–16,384 GiB, 100–64,000 IOPS; io2 4–65,536 GiB, 100–256,000 IOPS;
 *   st1 and sc1 125–16,384 GiB; standard 1–1,024 GiB. IOPS required for io1/io2, optional for gp3,
 *   not allowed otherwise; throughput for gp3 only.
 *   https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateVolume.html
 * - Amazon EBS volume types (General Purpose SSD, Provisioned IOPS SSD): gp3 at most 500 IOPS per
 *   GiB and 0.25 MiB/s per provisioned IOPS; io1 at most 50 IOPS per GiB; io2 at most 1,000 IOPS
 *   per GiB; Multi-Attach on io1 and io2 only.
 *   https://docs.aws.amazon.com/ebs/latest/userguide/ebs-volume-types.html
 * - Elastic Volumes modify magnetic (`standard`) volumes as any other type, and change a volume of
 *   another type to `standard`, within the target type's limits: ModifyVolume `Size` lists
 *   "standard: 1 - 1024 GiB" among the supported target sizes and `VolumeType` takes `standard`; the
 *   requirements page's limitations say "If you modify the volume type of a volume, the size and
 *   performance must be within the limits of the target volume type" and name `standard` only
 *   in "A root volume of type io1, io2, gp2, gp3, or standard can't be modified to an st1 or sc1
 *   volume" (this system attaches no root volume: its device names leave out /dev/sda1 and
 *   /dev/xvda). The sentence "The previous generation Magnetic volume type is not supported by the
 *   volume modification methods described in this topic" left that guide in June 2018.
 *   https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyVolume.html
 *   https://docs.aws.amazon.com/ebs/latest/userguide/modify-volume-requirements.html
 */
export const EBS_LIMITS: Record<VolumeType, VolumeTypeLimits> = {
  gp2: { sizeGiB: { min: 1, max: 16_384 }, multiAttach: false },
  gp3: {
    sizeGiB: { min: 1, max: 65_536 },
    iops: { min: 3_000, max: 80_000, required: false, maxPerGiB: 500, included: GP3_BASELINE.iops },
    throughput: { min: 125, max: 2_000, maxPerIops: 0.25, included: GP3_BASELINE.throughput },
    multiAttach: false,
  },
  io1: {
    sizeGiB: { min: 4, max: 16_384 },
    iops: { min: 100, max: 64_000, required: true, maxPerGiB: 50 },
    multiAttach: true,
  },
  io2: {
    sizeGiB: { min: 4, max: 65_536 },
    iops: { min: 100, max: 256_000, required: true, maxPerGiB: 1_000 },
    multiAttach: true,
  },
  st1: { sizeGiB: { min: 125, max: 16_384 }, multiAttach: false },
  sc1: { sizeGiB: { min: 125, max: 16_384 }, multiAttach: false },
  standard: { sizeGiB: { min: 1, max: 1_024 }, multiAttach: false },
};

/**
 * gp2's baseline IOPS, which EC2 reports as the volume's (and a modification's target) IOPS though
 * gp2 takes no IOPS setting: 3 per GiB, at least 100 and at most 16,000.
 * https://docs.aws.amazon.com/ebs/latest/userguide/general-purpose.html#gp2-performance
 *
 * @example gp2BaselineIops(20) // 100
 * @example gp2BaselineIops(1_000) // 3000
 */
export function gp2BaselineIops(sizeGiB: number): number {
  return Math.max(100, Math.min(16_000, 3 * sizeGiB));
}

/**
 * The most instances EBS attaches one Multi-Attach volume to (Nitro instances in its AZ).
 * https://docs.aws.amazon.com/ebs/latest/userguide/ebs-volumes-multi.html
 */
export const MULTI_ATTACH_MAX_INSTANCES = 16;

/** A volume's type with the IOPS and throughput a spec names or EC2 reports. */
type Performance = { volumeType: VolumeType; iops?: number; throughput?: number };

/**
 * The IOPS and throughput a volume of its type is provisioned with: a value a gp3 volume leaves
 * out is its baseline (`GP3_BASELINE`), whether a spec leaves it out (clearing it) or EC2 does not
 * report it; a type that takes no such setting has none, whatever EC2 reports (gp2's IOPS follow
 * its size).
 */
export function provisionedPerformance(volume: Performance): { iops?: number; throughput?: number } {
  const limits = EBS_LIMITS[volume.volumeType];
  const iops = limits.iops ? (volume.iops ?? limits.iops.included) : undefined;
  const throughput = limits.throughput ? (volume.throughput ?? limits.throughput.included) : undefined;
  return { ...(iops !== undefined ? { iops } : {}), ...(throughput !== undefined ? { throughput } : {}) };
}

/**
 * The IOPS and throughput a ModifyVolume must name to take a volume as `current` is to `next`:
 * those that differ as provisioned, and on a type change every one the new type takes, since EC2
 * then applies the new type's defaults rather than keeping the old values (ModifyVolume `Iops`
 * and `Throughput`: https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyVolume.html).
 */
export function performanceChange(current: Performance, next: Performance): { iops?: number; throughput?: number } {
  const wanted = provisionedPerformance(next);
  const has = current.volumeType === next.volumeType ? provisionedPerformance(current) : {};
  const change: { iops?: number; throughput?: number } = {};
  if (wanted.iops !== undefined && wanted.iops !== has.iops) change.iops = wanted.iops;
  if (wanted.throughput !== undefined && wanted.throughput !== has.throughput) change.throughput = wanted.throughput;
  return change;
}

/**
 * EC2 modifies a volume at most `MODIFICATIONS_PER_WINDOW` times in any `MODIFICATION_WINDOW_MS`
 * (a rolling window, counted from each modification's start), and each only once the one before it
 * has `completed`; a ModifyVolume beyond the count is refused with VolumeModificationRateExceeded,
 * one while a modification is still `modifying` or `optimizing` with IncorrectModificationState. A
 * failed modification does not hold the next one back ("retry the volume modification").
 * Sources: ModifyVolume in the EC2 API reference, as shipped in the API model of
 * @aws-sdk/client-ec2 3.1169 ("You can modify a volume up to four times within a rolling 24-hour
 * period, as long as … all previous modifications for that volume are completed").
 * https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_ModifyVolume.html
 * https://docs.aws.amazon.com/ebs/latest/userguide/monitoring-volume-modifications.html
 */
export const MODIFICATIONS_PER_WINDOW = 4;

/** The rolling window of `MODIFICATIONS_PER_WINDOW`: 24 hours. */
export const MODIFICATION_WINDOW_MS = 24 * 60 * 60 * 1000;

/** EC2's limit on modifications as people read it, in statuses and messages. */
export const MODIFICATION_RATE_RULE = `EC2 allows ${MODIFICATIONS_PER_WINDOW} modifications per volume in any ${MODIFICATION_WINDOW_MS / 3_600_000} hours`;
