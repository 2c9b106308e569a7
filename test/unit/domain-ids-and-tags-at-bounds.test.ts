/**
 * The ids, device names and tags a request may name (ID_RULES and TAG_RULES say them to clients),
 * each at its bound and one past it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEVICE_NAMES } from '../../lib/engine/config.js';
import {
  availabilityZoneSchema,
  deviceNameSchema,
  ebsVolumeIdSchema,
  instanceIdSchema,
  kmsKeyIdSchema,
  snapshotIdSchema,
  validateVolumeSpec,
  volumeRecordIdSchema,
  type ValidationIssue,
} from '../../lib/domain/validation.js';

const accepts = (schema: { safeParse(value: unknown): { success: boolean } }, value: string) => schema.safeParse(value).success;

function tagIssues(tags: Record<string, string>): ValidationIssue[] {
  const result = validateVolumeSpec({ sizeGiB: 10, volumeType: 'gp3', tags });
  return result.ok ? [] : result.issues;
}

describe('EC2 ids: a prefix and 8 or 17 lowercase hexadecimal digits', () => {
  const hex = (count: number) => '0123456789abcdef0123'.slice(0, count);
  const schemas = [
    ['instance', 'i-', instanceIdSchema],
    ['EBS volume', 'vol-', ebsVolumeIdSchema],
    ['snapshot', 'snap-', snapshotIdSchema],
  ] as const;

  it.each(schemas)('%s ids take 8 or 17 digits and refuse 7, 9, 16 or 18', (_name, prefix, schema) => {
    expect(accepts(schema, prefix + hex(8))).toBe(true);
    expect(accepts(schema, prefix + hex(17))).toBe(true);
    for (const count of [7, 9, 16, 18]) expect(accepts(schema, prefix + hex(count)), `${count} digits`).toBe(false);
  });

  it.each(schemas)('%s ids refuse uppercase digits and another prefix', (_name, prefix, schema) => {
    expect(accepts(schema, prefix + 'ABCDEF01')).toBe(false);
    expect(accepts(schema, `x${prefix}${hex(8)}`)).toBe(false);
    expect(accepts(schema, `${prefix}${hex(8)} `)).toBe(false);
  });
});

describe('volume record ids: 1–128 letters, digits, ".", "_" or "-", starting with a letter or digit', () => {
  it('takes 1 and 128 characters and refuses 0 and 129', () => {
    expect(accepts(volumeRecordIdSchema, 'a')).toBe(true);
    expect(accepts(volumeRecordIdSchema, 'a'.repeat(128))).toBe(true);
    expect(accepts(volumeRecordIdSchema, '')).toBe(false);
    expect(accepts(volumeRecordIdSchema, 'a'.repeat(129))).toBe(false);
  });

  it('takes ".", "_" and "-" after the first character, not as it, nor any other character', () => {
    expect(accepts(volumeRecordIdSchema, '0a.b_c-D')).toBe(true);
    for (const id of ['.a', '_a', '-a', 'a/b', 'a b', 'é']) expect(accepts(volumeRecordIdSchema, id), id).toBe(false);
  });
});

describe('device names: /dev/sd or /dev/xvd and one letter from b to z, or /dev/xvd and two letters from aa to dx', () => {
  it('takes the first and last letter of each form, and the last two-letter name the system allocates', () => {
    for (const device of ['/dev/sdb', '/dev/sdz', '/dev/xvdb', '/dev/xvdz', '/dev/xvdaa', '/dev/xvdcz', '/dev/xvdda', '/dev/xvddx']) {
      expect(accepts(deviceNameSchema, device), device).toBe(true);
    }
  });

  it('refuses a, three letters after xvd, two after sd, and other forms', () => {
    for (const device of ['/dev/sda', '/dev/xvda', '/dev/xvdaaa', '/dev/sdba', '/dev/sdB', '/dev/sdf1', '/dev/hdf']) {
      expect(accepts(deviceNameSchema, device), device).toBe(false);
    }
  });

  it('refuses the two-letter names EC2 refuses: after /dev/xvddx, and from /dev/xvdea to /dev/xvdzz', () => {
    for (const device of ['/dev/xvddy', '/dev/xvddz', '/dev/xvdea', '/dev/xvdez', '/dev/xvdza', '/dev/xvdzz']) {
      expect(accepts(deviceNameSchema, device), device).toBe(false);
    }
    expect(deviceNameSchema.safeParse('/dev/xvdea').error?.issues[0]?.message).toBe(
      'must be a device name EC2 takes for a volume: /dev/sd[b-z], /dev/xvd[b-z], /dev/xvd[a-c][a-z] or /dev/xvdd[a-x], like /dev/sdf or /dev/xvdba',
    );
  });

  it('holds every name the system allocates itself', () => {
    for (const device of DEFAULT_DEVICE_NAMES) expect(accepts(deviceNameSchema, device), device).toBe(true);
  });
});

describe('KMS keys: a key id, a multi-Region key id, an alias, or an ARN', () => {
  it('takes each form, an alias of up to 250 characters after "alias/"', () => {
    for (const key of [
      '0123abcd-0123-4567-89ab-0123456789ab',
      `mrk-${'0123456789abcdef'.repeat(2)}`,
      `alias/${'a'.repeat(250)}`,
      'arn:aws:kms:us-east-1:123456789012:key/0123abcd-0123-4567-89ab-0123456789ab',
      `arn:aws:kms:us-east-1:123456789012:alias/${'a'.repeat(250)}`,
    ]) {
      expect(accepts(kmsKeyIdSchema, key), key).toBe(true);
    }
  });

  it('takes a key or alias ARN of every partition: aws, aws-cn, aws-us-gov', () => {
    for (const partition of ['aws', 'aws-cn', 'aws-us-gov']) {
      expect(accepts(kmsKeyIdSchema, `arn:${partition}:kms:us-east-1:123456789012:key/0123abcd-0123-4567-89ab-0123456789ab`), partition).toBe(true);
      expect(accepts(kmsKeyIdSchema, `arn:${partition}:kms:us-east-1:123456789012:alias/ebs`), partition).toBe(true);
    }
    expect(accepts(kmsKeyIdSchema, 'arn:aws:s3:us-east-1:123456789012:key/0123abcd-0123-4567-89ab-0123456789ab')).toBe(false);
    expect(accepts(kmsKeyIdSchema, 'arn:aws:kms:us-east-1:12345678901:alias/ebs')).toBe(false);
  });

  it('refuses a key id of 11 or 13 final digits or in uppercase, an alias of 251 characters, an empty one, and a multi-Region key id of 31 or 33 digits', () => {
    for (const key of ['0123abcd-0123-4567-89ab-0123456789a', '0123abcd-0123-4567-89ab-0123456789abc', '0123ABCD-0123-4567-89AB-0123456789AB', `alias/${'a'.repeat(251)}`, 'alias/', `arn:aws:kms:us-east-1:123456789012:alias/${'a'.repeat(251)}`, `mrk-${'a'.repeat(31)}`, `mrk-${'a'.repeat(33)}`]) {
      expect(accepts(kmsKeyIdSchema, key), key).toBe(false);
    }
  });
});

describe('availability zones', () => {
  it('takes a Region and a letter, a Local Zone and a Wavelength Zone', () => {
    for (const zone of ['us-east-1a', 'ap-southeast-2c', 'us-gov-west-1b', 'us-west-2-lax-1a', 'us-east-1-wl1-bos-wlz-1', 'ap-northeast-1-wl1-kix-wlz-1']) {
      expect(accepts(availabilityZoneSchema, zone), zone).toBe(true);
    }
  });

  it('takes a zone of a Region whose code starts with a longer word: the European Sovereign Cloud and the isolated partitions', () => {
    for (const zone of ['eusc-de-east-1a', 'us-isob-east-1a', 'eu-isoe-west-1b']) {
      expect(accepts(availabilityZoneSchema, zone), zone).toBe(true);
    }
  });

  it('refuses a Region code whose first word is a single letter', () => {
    expect(accepts(availabilityZoneSchema, 'u-east-1a')).toBe(false);
  });

  it('refuses a Region without its zone letter, two zone letters, an AZ id, and a Wavelength Zone cut short or given a letter', () => {
    for (const zone of ['us-east-1', 'us-east-1ab', 'use1-az1', 'US-EAST-1A', 'us-east-1-wl1-bos-wlz', 'us-east-1-wl1-bos-wlz-1a', 'us-east-1-wl-bos-wlz-1', 'us-east-1-bos-wlz-1']) {
      expect(accepts(availabilityZoneSchema, zone), zone).toBe(false);
    }
  });
});

describe('tags: at most 48, keys of 1–127 characters, values of at most 256', () => {
  const tags = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 'v']));

  it('takes 48 tags and refuses 49', () => {
    expect(tagIssues(tags(48))).toEqual([]);
    expect(tagIssues(tags(49))).toEqual([{ path: 'spec.tags', message: 'at most 48 tags, got 49' }]);
  });

  it('takes a key of 1 and of 127 characters, and refuses one of 0 or 128', () => {
    expect(tagIssues({ k: 'v', ['k'.repeat(127)]: 'v' })).toEqual([]);
    expect(tagIssues({ '': 'v' })).toEqual([{ path: 'spec.tags[""]', message: 'tag key must be 1–127 characters, got 0' }]);
    expect(tagIssues({ ['k'.repeat(128)]: 'v' })).toEqual([{ path: `spec.tags.${'k'.repeat(128)}`, message: 'tag key must be 1–127 characters, got 128' }]);
  });

  it('takes a value of 0 and of 256 characters, and refuses one of 257', () => {
    expect(tagIssues({ empty: '', long: 'v'.repeat(256) })).toEqual([]);
    expect(tagIssues({ long: 'v'.repeat(257) })).toEqual([{ path: 'spec.tags.long', message: 'tag value must be at most 256 characters, got 257' }]);
  });

  it('takes letters, digits, spaces and _ . : / = + - @ in keys and values, and refuses any other character in either', () => {
    const allowed = 'Team é 7 _.:/=+-@';
    expect(tagIssues({ [allowed]: allowed })).toEqual([]);
    const message = 'tags may contain only letters, digits, spaces and _ . : / = + - @';
    for (const character of [';', '#', '*', '"', '\n']) {
      expect(tagIssues({ [`a${character}`]: 'v' }), JSON.stringify(character)).toEqual([{ path: `spec.tags[${JSON.stringify(`a${character}`)}]`, message }]);
      expect(tagIssues({ team: `a${character}` }), JSON.stringify(character)).toEqual([{ path: 'spec.tags.team', message }]);
    }
  });

  it('refuses keys starting with aws: or ebs-provisioner: in any case, and takes those prefixes elsewhere in a key or in a value', () => {
    expect(tagIssues({ 'Aws:x': 'v' })).toEqual([{ path: 'spec.tags["Aws:x"]', message: 'tag keys starting with "aws:" are reserved' }]);
    expect(tagIssues({ 'EBS-Provisioner:x': 'v' })).toEqual([{ path: 'spec.tags["EBS-Provisioner:x"]', message: 'tag keys starting with "ebs-provisioner:" are reserved' }]);
    expect(tagIssues({ 'team:aws:x': 'aws:x', aws: 'ebs-provisioner:y' })).toEqual([]);
  });
});
