/**
 * Every EBS limit a spec is judged by, at its bound and one past it on each side: sizes, IOPS and
 * throughput per type, the IOPS-per-GiB and throughput-per-IOPS ratios, and which settings a type
 * takes (lib/domain/ebs-limits.ts names the AWS pages each comes from).
 */
import { describe, expect, it } from 'vitest';
import { validateVolumeSpec, type ValidationIssue } from '../../lib/domain/validation.js';

function issuesOf(input: unknown): ValidationIssue[] {
  const result = validateVolumeSpec(input);
  return result.ok ? [] : result.issues;
}

describe('volume sizes per type', () => {
  const sizes = [
    ['gp2', 1, 16_384, {}],
    ['gp3', 1, 65_536, {}],
    ['io1', 4, 16_384, { iops: 100 }],
    ['io2', 4, 65_536, { iops: 100 }],
    ['st1', 125, 16_384, {}],
    ['sc1', 125, 16_384, {}],
    ['standard', 1, 1_024, {}],
  ] as const;

  it.each(sizes)('%s takes %i–%i GiB, and refuses one GiB fewer or more, naming the range', (volumeType, min, max, extra) => {
    expect(issuesOf({ sizeGiB: min, volumeType, ...extra })).toEqual([]);
    expect(issuesOf({ sizeGiB: max, volumeType, ...extra })).toEqual([]);
    for (const sizeGiB of [min - 1, max + 1].filter((size) => size > 0)) {
      expect(issuesOf({ sizeGiB, volumeType, ...extra })).toEqual([
        { path: 'spec.sizeGiB', message: `${volumeType} volumes are ${min}–${max} GiB, got ${sizeGiB}` },
      ]);
    }
  });

  it('refuses a size of 0 or below as not positive, and a fraction as not whole', () => {
    expect(issuesOf({ sizeGiB: 0, volumeType: 'gp3' })).toEqual([{ path: 'spec.sizeGiB', message: 'must be positive' }]);
    expect(issuesOf({ sizeGiB: -1, volumeType: 'gp3' })).toEqual([{ path: 'spec.sizeGiB', message: 'must be positive' }]);
    expect(issuesOf({ sizeGiB: 1.5, volumeType: 'gp3' })).toEqual([{ path: 'spec.sizeGiB', message: 'must be a whole number' }]);
  });
});

describe('IOPS per type', () => {
  const ranges = [
    ['gp3', 3_000, 80_000, 65_536],
    ['io1', 100, 64_000, 16_384],
    ['io2', 100, 256_000, 65_536],
  ] as const;

  it.each(ranges)('%s takes %i–%i IOPS, and refuses one fewer or more, naming the range', (volumeType, min, max, sizeGiB) => {
    expect(issuesOf({ sizeGiB, volumeType, iops: min })).toEqual([]);
    expect(issuesOf({ sizeGiB, volumeType, iops: max })).toEqual([]);
    for (const iops of [min - 1, max + 1]) {
      expect(issuesOf({ sizeGiB, volumeType, iops })).toEqual([{ path: 'spec.iops', message: `${volumeType} supports ${min}–${max} IOPS, got ${iops}` }]);
    }
  });

  it('requires IOPS of io1 and io2, naming the range, and leaves them optional on gp3', () => {
    expect(issuesOf({ sizeGiB: 100, volumeType: 'io1' })).toEqual([{ path: 'spec.iops', message: 'io1 volumes require an IOPS setting (100–64000)' }]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'io2' })).toEqual([{ path: 'spec.iops', message: 'io2 volumes require an IOPS setting (100–256000)' }]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3' })).toEqual([]);
  });

  it.each(['gp2', 'st1', 'sc1', 'standard'] as const)('refuses an IOPS setting on %s, which takes none', (volumeType) => {
    expect(issuesOf({ sizeGiB: 500, volumeType, iops: 3000 })).toEqual([{ path: 'spec.iops', message: `${volumeType} volumes take no IOPS setting` }]);
  });

  const ratios = [
    ['gp3', 500, 10],
    ['io1', 50, 100],
    ['io2', 1_000, 100],
  ] as const;

  it.each(ratios)('%s allows %i IOPS per GiB: exactly that many are taken, one more is refused', (volumeType, perGiB, sizeGiB) => {
    expect(issuesOf({ sizeGiB, volumeType, iops: sizeGiB * perGiB })).toEqual([]);
    expect(issuesOf({ sizeGiB, volumeType, iops: sizeGiB * perGiB + 1 })).toEqual([
      { path: 'spec.iops', message: `${volumeType} allows at most ${perGiB} IOPS per GiB: ${sizeGiB} GiB allows ${sizeGiB * perGiB}, got ${sizeGiB * perGiB + 1}` },
    ]);
    // One GiB more allows the same IOPS.
    expect(issuesOf({ sizeGiB: sizeGiB + 1, volumeType, iops: sizeGiB * perGiB + 1 })).toEqual([]);
  });
});

describe('throughput', () => {
  it('gp3 takes 125–2000 MiB/s, and refuses one fewer or more, naming the range', () => {
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', throughput: 125 })).toEqual([]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', iops: 8_000, throughput: 2_000 })).toEqual([]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', throughput: 124 })).toEqual([{ path: 'spec.throughput', message: 'gp3 supports 125–2000 MiB/s, got 124' }]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', iops: 16_000, throughput: 2_001 })).toEqual([
      { path: 'spec.throughput', message: 'gp3 supports 125–2000 MiB/s, got 2001' },
    ]);
  });

  it('gp3 allows 0.25 MiB/s per provisioned IOPS: exactly that is taken, 1 MiB/s more is refused', () => {
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', iops: 4_000, throughput: 1_000 })).toEqual([]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', iops: 4_000, throughput: 1_001 })).toEqual([
      { path: 'spec.throughput', message: 'gp3 allows at most 0.25 MiB/s per IOPS: 4000 IOPS allows 1000, got 1001' },
    ]);
    // Without IOPS, the ratio is of the 3000 IOPS baseline.
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', throughput: 750 })).toEqual([]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'gp3', throughput: 751 })).toEqual([
      { path: 'spec.throughput', message: 'gp3 allows at most 0.25 MiB/s per IOPS: 3000 IOPS allows 750, got 751' },
    ]);
  });

  it.each(['gp2', 'io1', 'io2', 'st1', 'sc1', 'standard'] as const)('refuses a throughput setting on %s, which takes none', (volumeType) => {
    const iops = volumeType === 'io1' || volumeType === 'io2' ? { iops: 1000 } : {};
    expect(issuesOf({ sizeGiB: 500, volumeType, ...iops, throughput: 250 })).toEqual([
      { path: 'spec.throughput', message: `${volumeType} volumes take no throughput setting` },
    ]);
  });
});

describe('settings a type or another setting decides', () => {
  it('takes Multi-Attach on io1 and io2 only', () => {
    expect(issuesOf({ sizeGiB: 100, volumeType: 'io1', iops: 1000, multiAttach: true })).toEqual([]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true })).toEqual([]);
    for (const volumeType of ['gp2', 'gp3', 'st1', 'sc1', 'standard'] as const) {
      expect(issuesOf({ sizeGiB: 500, volumeType, multiAttach: true })).toEqual([
        { path: 'spec.multiAttach', message: `multi-attach is available on io1 and io2 only, not ${volumeType}` },
      ]);
      expect(issuesOf({ sizeGiB: 500, volumeType, multiAttach: false })).toEqual([]);
    }
  });

  it('takes a KMS key only with encrypted: true, and refuses it with encrypted left out or false', () => {
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', encrypted: true, kmsKeyId: 'alias/ebs' })).toEqual([]);
    for (const encrypted of [{}, { encrypted: false }]) {
      expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', ...encrypted, kmsKeyId: 'alias/ebs' })).toEqual([
        { path: 'spec.encrypted', message: 'must be true when kmsKeyId is given' },
      ]);
    }
  });

  it('takes an AZ or an instance to place the volume by, not both', () => {
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' })).toEqual([]);
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', placementInstanceId: 'i-0123456789abcdef0' })).toEqual([]);
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', placementInstanceId: 'i-0123456789abcdef0' })).toEqual([
      { path: 'spec.placementInstanceId', message: 'give either availabilityZone or placementInstanceId, not both' },
    ]);
  });
});
