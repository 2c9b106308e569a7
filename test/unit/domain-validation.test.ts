import { describe, expect, it } from 'vitest';
import { GP3_BASELINE, gp2BaselineIops, performanceChange, provisionedPerformance } from '../../lib/domain/ebs-limits.js';
import type { VolumeRecord, VolumeSpec } from '../../lib/domain/records.js';
import { newAttachment, newVolume } from './engine-fixtures.js';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import { approximateItemBytes, MemoryRecordStore } from '../../lib/memory/store.js';
import { OWNERSHIP_TAGS, TABLE } from '../../lib/settings.js';
import {
  clientTagsOf,
  managedTagsOf,
  describeValidationIssues,
  deviceNameSchema,
  enclosingFieldPaths,
  fieldPath,
  isReservedTagKey,
  MAX_PATH_KEY_CHARS,
  tagChanges,
  instanceIdSchema,
  ebsBaseline,
  parseRecord,
  specChangeIssues,
  validateSpecChange,
  validateVolumeSpec,
  type ValidationIssue,
} from '../../lib/domain/validation.js';

function issuesOf(input: unknown): ValidationIssue[] {
  const result = validateVolumeSpec(input);
  return result.ok ? [] : result.issues;
}

describe('validateVolumeSpec', () => {
  it('accepts typical specs of every type', () => {
    const good: VolumeSpec[] = [
      { sizeGiB: 20, volumeType: 'gp3' },
      { sizeGiB: 1000, volumeType: 'gp3', iops: 16000, throughput: 1000, availabilityZone: 'us-east-1a' },
      { sizeGiB: 65_536, volumeType: 'gp3', iops: 80_000, throughput: 2_000 },
      { sizeGiB: 100, volumeType: 'gp2', placementInstanceId: 'i-0123456789abcdef0' },
      { sizeGiB: 100, volumeType: 'io1', iops: 5000, multiAttach: true },
      { sizeGiB: 100, volumeType: 'io2', iops: 100_000, encrypted: true, kmsKeyId: 'alias/ebs' },
      { sizeGiB: 125, volumeType: 'st1', snapshotId: 'snap-0123456789abcdef0' },
      { sizeGiB: 16_384, volumeType: 'sc1', tags: { team: 'data', 'cost-center': '42' } },
      { sizeGiB: 1024, volumeType: 'standard' },
    ];
    for (const spec of good) expect(issuesOf(spec), JSON.stringify(spec)).toEqual([]);
  });

  it("takes a type's minimum IOPS at any size: gp3's 3000 baseline comes with every size, above 500 per GiB of a small volume", () => {
    expect(issuesOf({ sizeGiB: 1, volumeType: 'gp3', iops: 3000 })).toEqual([]);
    expect(issuesOf({ sizeGiB: 5, volumeType: 'gp3', iops: 3000, throughput: 125 })).toEqual([]);
    expect(issuesOf({ sizeGiB: 1, volumeType: 'gp3', iops: 3001 })).toEqual([
      { path: 'spec.iops', message: 'gp3 allows at most 500 IOPS per GiB: 1 GiB allows 500, got 3001' },
    ]);
  });

  it('refuses a whole number past the safe range (2^53 and up) as too large, with the EBS range, not as a number that is not whole', () => {
    expect(issuesOf({ sizeGiB: 2 ** 53, volumeType: 'gp3' })).toEqual([
      { path: 'spec.sizeGiB', message: `must be at most ${Number.MAX_SAFE_INTEGER}` },
      { path: 'spec.sizeGiB', message: 'gp3 volumes are 1–65536 GiB, got 9007199254740992' },
    ]);
    expect(issuesOf({ sizeGiB: 100, volumeType: 'io2', iops: 1e300 }).filter((issue) => /whole/.test(issue.message))).toEqual([]);
    // A negative one is not positive, whatever its size.
    expect(issuesOf({ sizeGiB: -(2 ** 53), volumeType: 'gp3' })).toEqual([{ path: 'spec.sizeGiB', message: 'must be positive' }]);
  });

  it.each([
    [{ sizeGiB: 0, volumeType: 'gp3' }, 'spec.sizeGiB', /positive/],
    [{ sizeGiB: 1.5, volumeType: 'gp3' }, 'spec.sizeGiB', /whole number/],
    [{ sizeGiB: 65_537, volumeType: 'gp3' }, 'spec.sizeGiB', /gp3 volumes are 1–65536 GiB, got 65537/],
    [{ sizeGiB: 16_385, volumeType: 'gp2' }, 'spec.sizeGiB', /gp2 volumes are 1–16384 GiB/],
    [{ sizeGiB: 3, volumeType: 'io2', iops: 100 }, 'spec.sizeGiB', /io2 volumes are 4–65536 GiB/],
    [{ sizeGiB: 100, volumeType: 'st1' }, 'spec.sizeGiB', /st1 volumes are 125–16384 GiB/],
    [{ sizeGiB: 2000, volumeType: 'standard' }, 'spec.sizeGiB', /standard volumes are 1–1024 GiB/],
    [{ sizeGiB: 10, volumeType: 'nvme' }, 'spec.volumeType', /Invalid option/i],
    [{ sizeGiB: 100, volumeType: 'gp2', iops: 3000 }, 'spec.iops', /gp2 volumes take no IOPS/],
    [{ sizeGiB: 500, volumeType: 'st1', throughput: 200 }, 'spec.throughput', /st1 volumes take no throughput/],
    [{ sizeGiB: 100, volumeType: 'io1' }, 'spec.iops', /io1 volumes require an IOPS setting/],
    [{ sizeGiB: 1000, volumeType: 'gp3', iops: 90_000 }, 'spec.iops', /gp3 supports 3000–80000 IOPS, got 90000/],
    [{ sizeGiB: 1000, volumeType: 'gp3', iops: 2000 }, 'spec.iops', /gp3 supports 3000–80000 IOPS, got 2000/],
    [{ sizeGiB: 10, volumeType: 'gp3', iops: 6000 }, 'spec.iops', /at most 500 IOPS per GiB: 10 GiB allows 5000, got 6000/],
    [{ sizeGiB: 10, volumeType: 'io1', iops: 600 }, 'spec.iops', /at most 50 IOPS per GiB/],
    [{ sizeGiB: 10, volumeType: 'io2', iops: 10_001 }, 'spec.iops', /at most 1000 IOPS per GiB/],
    [{ sizeGiB: 1000, volumeType: 'gp3', throughput: 2001, iops: 10_000 }, 'spec.throughput', /125–2000 MiB\/s, got 2001/],
    [{ sizeGiB: 1000, volumeType: 'gp3', throughput: 1000 }, 'spec.throughput', /0.25 MiB\/s per IOPS: 3000 IOPS allows 750, got 1000/],
    [{ sizeGiB: 100, volumeType: 'gp3', multiAttach: true }, 'spec.multiAttach', /io1 and io2 only/],
    [{ sizeGiB: 100, volumeType: 'gp3', kmsKeyId: 'alias/ebs' }, 'spec.encrypted', /must be true when kmsKeyId/],
    [{ sizeGiB: 100, volumeType: 'gp3', kmsKeyId: 'not a key', encrypted: true }, 'spec.kmsKeyId', /KMS key/],
    [{ sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'us-east-1a', placementInstanceId: 'i-0123456789abcdef0' }, 'spec.placementInstanceId', /either/],
    [{ sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'mars' }, 'spec.availabilityZone', /availability zone/],
    [{ sizeGiB: 100, volumeType: 'gp3', placementInstanceId: 'i-xyz' }, 'spec.placementInstanceId', /instance id/],
    [{ sizeGiB: 100, volumeType: 'gp3', snapshotId: 'snapshot-1' }, 'spec.snapshotId', /snapshot id/],
    [{ sizeGiB: 100, volumeType: 'gp3', color: 'red' }, 'spec.color', /^is not a known field$/],
    [{ sizeGiB: '100', volumeType: 'gp3' }, 'spec.sizeGiB', /expected number/i],
  ])('rejects %j at %s', (spec, path, message) => {
    const issues = issuesOf(spec);
    expect(issues.some((i) => i.path === path && (message as RegExp).test(i.message)), JSON.stringify(issues)).toBe(true);
  });

  it('enforces AWS tag rules and keeps the reserved prefixes for the system', () => {
    const tooMany = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v']));
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags: tooMany })[0]?.message).toMatch(/at most 48 tags, got 49/);
    // Too many tags is the one issue, however many of them are invalid too.
    const tooManyInvalid = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`aws:${i}`, ';']));
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags: tooManyInvalid })).toEqual([{ path: 'spec.tags', message: 'at most 48 tags, got 49' }]);
    const bad = issuesOf({
      sizeGiB: 10,
      volumeType: 'gp3',
      tags: { 'AWS:name': 'x', 'ebs-provisioner:owner': 'x', ['k'.repeat(128)]: 'v', long: 'v'.repeat(257), 'semi;colon': 'v' },
    });
    expect(bad.map((i) => i.message)).toEqual(
      expect.arrayContaining([
        'tag keys starting with "aws:" are reserved',
        'tag keys starting with "ebs-provisioner:" are reserved',
        'tag key must be 1–127 characters, got 128',
        'tag value must be at most 256 characters, got 257',
        'tags may contain only letters, digits, spaces and _ . : / = + - @',
      ]),
    );
    expect(bad.find((i) => i.message.includes('"aws:"'))?.path).toBe('spec.tags["AWS:name"]');
    // An empty key is named as such, not as the tags as a whole.
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags: { '': 'x' } })).toEqual([{ path: 'spec.tags[""]', message: 'tag key must be 1–127 characters, got 0' }]);
  });

  it('counts tag keys and values in characters, as EC2 does, not in UTF-16 code units', () => {
    // U+20000 is one character (a letter) that takes two UTF-16 code units.
    const wide = (count: number) => '\u{20000}'.repeat(count);
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags: { [wide(127)]: wide(256), team: wide(200) } })).toEqual([]);
    const issues = issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags: { [wide(128)]: 'v', long: wide(257) } });
    expect(issues.map((issue) => issue.message)).toEqual(['tag key must be 1–127 characters, got 128', 'tag value must be at most 256 characters, got 257']);
    // What EC2 holds, and the keys a CreateTags was sent to set, are read by the same count.
    const record = { ...newVolume('v1'), ebsVolumeId: 'vol-0123456789abcdef0', observed: { sizeGiB: 10, volumeType: 'gp3', tags: { [wide(127)]: wide(256) } }, tagKeysSet: [wide(127)] };
    expect(parseRecord(record)).toMatchObject({ ok: true });
    const over = parseRecord({ ...record, observed: { ...record.observed, tags: { [wide(128)]: 'v' } }, tagKeysSet: [wide(128)] });
    expect(over.ok ? [] : over.issues.map((issue) => issue.path.split('.')[0])).toEqual(['observed', 'tagKeysSet']);
  });

  it('describes issues on one line, the first ones and how many more when they do not fit in a status message', () => {
    expect(describeValidationIssues([{ path: 'spec.sizeGiB', message: 'must be positive' }, { path: '', message: 'bad' }])).toBe('spec.sizeGiB: must be positive; bad');
    // A record written straight into the table: many invalid tags, or one key far longer than a message.
    const tags = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`aws:${'x'.repeat(20)}${i}`, 'v']));
    const issues = issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags });
    const text = describeValidationIssues(issues);
    expect(text.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    const listed = text.split('; ').length - 1;
    expect(text).toBe([...issues.slice(0, listed).map((i) => `${i.path}: ${i.message}`), `… (${48 - listed} more issues)`].join('; '));
    expect(listed).toBeGreaterThan(20);
    const half = { path: 'spec', message: 'x'.repeat(MAX_STATUS_MESSAGE_CHARS / 2) };
    expect(describeValidationIssues([half, half])).toBe(`spec: ${half.message}; … (1 more issue)`);
    const longKey = describeValidationIssues(issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags: { ['k'.repeat(100_000)]: 'v' } }));
    // The key is quoted by its start and its end, so the message says what is wrong with it.
    expect(longKey).toBe(`spec.tags["${'k'.repeat(MAX_PATH_KEY_CHARS / 2 - 1)}…${'k'.repeat(MAX_PATH_KEY_CHARS / 2)}"]: tag key must be 1–127 characters, got 100000`);
  });

  it('checks ids and device names', () => {
    expect(instanceIdSchema.safeParse('i-0123456789abcdef0').success).toBe(true);
    expect(instanceIdSchema.safeParse('i-01234567').success).toBe(true);
    expect(instanceIdSchema.safeParse('i-0123').success).toBe(false);
    for (const device of ['/dev/sdf', '/dev/xvdf', '/dev/xvdba']) expect(deviceNameSchema.safeParse(device).success).toBe(true);
    for (const device of ['/dev/sda', '/dev/xvda', 'sdf', '/dev/nvme1n1']) expect(deviceNameSchema.safeParse(device).success).toBe(false);
  });
});

describe('field paths', () => {
  it('dots plain identifiers and brackets, quoted, every other key, so a key holding "." names one field', () => {
    expect(fieldPath(['spec', 'tags', 'team'])).toBe('spec.tags.team');
    expect(fieldPath(['spec', 'tags', 'team.name'])).toBe('spec.tags["team.name"]');
    expect(fieldPath(['spec', 'tags', 'team', 'name'])).toBe('spec.tags.team.name');
    expect(fieldPath(['tags', 'aws:cost'], 'record')).toBe('record.tags["aws:cost"]');
    expect(fieldPath(['spec', 'tags', ''])).toBe('spec.tags[""]');
    expect(fieldPath(['a"b\\c'])).toBe('["a\\"b\\\\c"]');
    expect(fieldPath(['items', 0, '0'])).toBe('items.0["0"]');
    expect(issuesOf({ sizeGiB: 10, volumeType: 'gp3', tags: { 'aws:team.name': 'x' } }).map((issue) => issue.path)).toEqual(['spec.tags["aws:team.name"]']);
  });

  it('quotes a key longer than MAX_PATH_KEY_CHARS by its start and its end, "…" between them, so a path stays small whatever the key', () => {
    const whole = 'k'.repeat(MAX_PATH_KEY_CHARS);
    const half = MAX_PATH_KEY_CHARS / 2;
    expect(fieldPath(['spec', 'tags', whole])).toBe(`spec.tags.${whole}`);
    expect(fieldPath(['spec', 'tags', `${whole}z`])).toBe(`spec.tags["${'k'.repeat(half - 1)}…${'k'.repeat(half - 1)}z"]`);
    expect(fieldPath(['spec', 'x'.repeat(100_000), 'y'.repeat(100_000)]).length).toBeLessThan(2 * MAX_PATH_KEY_CHARS + 20);
    // Two keys that differ only past their first MAX_PATH_KEY_CHARS - 1 characters read apart.
    expect(fieldPath([`${'k'.repeat(MAX_PATH_KEY_CHARS - 1)}ab`])).not.toBe(fieldPath([`${'k'.repeat(MAX_PATH_KEY_CHARS - 1)}ba`]));
    // A surrogate pair is never cut in two, at the start's end or at the end's start.
    expect(fieldPath([`${'k'.repeat(half - 2)}😀😀${'k'.repeat(half + 2)}`])).toBe(`["${'k'.repeat(half - 2)}…${'k'.repeat(half)}"]`);
    expect(fieldPath([`${'k'.repeat(half + 2)}😀😀${'k'.repeat(half - 2)}`])).toBe(`["${'k'.repeat(half - 1)}…😀${'k'.repeat(half - 2)}"]`);
  });

  it('lists the fields a path is in, a quoted key whole', () => {
    expect(enclosingFieldPaths('spec.tags["team.name"]')).toEqual(['spec.tags["team.name"]', 'spec.tags', 'spec']);
    expect(enclosingFieldPaths('tags["a\\"].b[x"]')).toEqual(['tags["a\\"].b[x"]', 'tags']);
    expect(enclosingFieldPaths('spec.tags[""]')).toEqual(['spec.tags[""]', 'spec.tags', 'spec']);
    expect(enclosingFieldPaths('spec.sizeGiB')).toEqual(['spec.sizeGiB', 'spec']);
    expect(enclosingFieldPaths('["0"].a')).toEqual(['["0"].a', '["0"]']);
    expect(enclosingFieldPaths('')).toEqual([]);
  });
});

describe('validateSpecChange', () => {
  const current: VolumeSpec = { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: { a: 'b' } };

  it('allows growth and performance changes', () => {
    expect(validateSpecChange(current, { ...current, sizeGiB: 200, iops: 6000, throughput: 500 })).toEqual([]);
    expect(validateSpecChange(current, { ...current, volumeType: 'io2', iops: 10_000 })).toEqual([]);
  });

  it('rejects shrinking (a magnetic volume too), fixed fields and invalid targets', () => {
    expect(validateSpecChange(current, { ...current, sizeGiB: 50 })).toEqual([
      { path: 'spec.sizeGiB', message: 'EBS volumes can only grow: 100 GiB cannot become 50 GiB' },
    ]);
    expect(validateSpecChange(current, { ...current, availabilityZone: 'us-east-1b', encrypted: true }).map((i) => i.path)).toEqual([
      'spec.availabilityZone',
      'spec.encrypted',
    ]);
    expect(validateSpecChange({ sizeGiB: 20, volumeType: 'standard' }, { sizeGiB: 10, volumeType: 'standard' })[0]?.path).toBe('spec.sizeGiB');
    expect(validateSpecChange(current, { ...current, iops: 100 })[0]?.path).toBe('spec.iops');
    const multi: VolumeSpec = { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true };
    expect(validateSpecChange(multi, { ...multi, volumeType: 'io1' }).map((i) => i.message)).toContain(
      'the type of a multi-attach volume cannot be changed',
    );
  });
});

describe('tags after creation', () => {
  it('lets tags change like any spec field, within the same limits as at creation', () => {
    const current: VolumeSpec = { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: { a: 'b' } };
    expect(validateSpecChange(current, { ...current, tags: { a: 'c', d: 'e' } })).toEqual([]);
    expect(validateSpecChange(current, { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'us-east-1a' })).toEqual([]);
    expect(validateSpecChange(current, { ...current, tags: { [OWNERSHIP_TAGS.record]: 'other' } })).toEqual([
      { path: `spec.tags["${OWNERSHIP_TAGS.record}"]`, message: 'tag keys starting with "ebs-provisioner:" are reserved' },
    ]);
  });

  it('never takes an ownership or aws: key for a client tag', () => {
    for (const key of Object.values(OWNERSHIP_TAGS)) expect(isReservedTagKey(key)).toBe(true);
    expect(isReservedTagKey('AWS:cloudformation:stack-name')).toBe(true);
    expect(isReservedTagKey('team')).toBe(false);
    expect(clientTagsOf({ [OWNERSHIP_TAGS.owner]: 's', 'aws:backup:source': 'x', team: 'a' })).toEqual({ team: 'a' });
  });

  it('tells the tags to set and the keys to remove, whatever the key order', () => {
    expect(tagChanges({ a: '1', b: '2' }, { b: '2', a: '1' })).toBeUndefined();
    expect(tagChanges(undefined, {})).toBeUndefined();
    expect(tagChanges({ a: '1', b: '2' }, { a: '9', c: '3' })).toEqual({ set: { a: '9', c: '3' }, remove: ['b'] });
    expect(tagChanges({ a: '1' }, undefined)).toEqual({ set: {}, remove: ['a'] });
    // Keys named like an object's own properties are keys like any other.
    expect(tagChanges({ toString: '1', constructor: '2', a: '1' }, { a: '1' })).toEqual({ set: {}, remove: ['toString', 'constructor'] });
    expect(tagChanges({}, { valueOf: '1' })).toEqual({ set: { valueOf: '1' }, remove: [] });
  });

  it('reads the observed tags of a record, and a record written before they were observed', () => {
    const observed = { sizeGiB: 10, volumeType: 'gp3' as const };
    const record = (extra: Partial<VolumeRecord>) => ({ ...newVolume('v1'), ebsVolumeId: 'vol-0123456789abcdef0', ...extra });
    expect(parseRecord(record({ observed: { ...observed, tags: { team: 'a' } } }))).toMatchObject({ ok: true, value: { observed: { tags: { team: 'a' } } } });
    const before = parseRecord(record({ observed }));
    expect(before.ok && before.value.kind === 'volume' && before.value.observed?.tags).toBe(undefined);
    // The baseline: the observed tags when known, else those it was created with.
    expect(ebsBaseline(record({ spec: { ...newVolume('v1').spec, tags: { team: 'b' } }, createRequest: { clientToken: 't', availabilityZone: 'eu-west-1a', spec: { ...newVolume('v1').spec, tags: { team: 'a' } } }, observed }))?.tags).toEqual({ team: 'a' });
    expect(ebsBaseline(record({ observed: { ...observed, tags: {} }, createRequest: { clientToken: 't', availabilityZone: 'eu-west-1a', spec: { ...newVolume('v1').spec, tags: { team: 'a' } } } }))?.tags).toEqual({});
  });

  it('manages the client tag keys a spec names or the record last held, and none set outside under other keys', () => {
    const observed = { sizeGiB: 10, volumeType: 'gp3' as const };
    const spec = { ...newVolume('v1').spec, tags: { team: 'b' } };
    const record = { ...newVolume('v1'), ebsVolumeId: 'vol-0123456789abcdef0', spec, observed: { ...observed, tags: { team: 'a', env: 'dev' } } };
    const ec2 = { [OWNERSHIP_TAGS.owner]: 's', 'aws:backup:source': 'x', team: 'a', env: 'dev', cost: 'c-1' };
    // `env` left the spec but the record last held it: still managed, so it is removed in EC2.
    expect(managedTagsOf(record, ec2)).toEqual({ team: 'a', env: 'dev' });
    // Held no longer: a tag set outside under that key is none of the system's business.
    expect(managedTagsOf({ ...record, observed: { ...observed, tags: { team: 'b' } } }, ec2)).toEqual({ team: 'a' });
    // Unless a CreateTags whose result is not recorded may have set it.
    expect(managedTagsOf({ ...record, observed: { ...observed, tags: { team: 'b' } }, tagKeysSet: ['cost'] }, ec2)).toEqual({ team: 'a', cost: 'c-1' });
  });

  it('refuses a record whose spec names a tag `__proto__` (written by hand), naming it, instead of parsing it without that tag', () => {
    const record = { ...newVolume('v1'), spec: { ...newVolume('v1').spec, tags: JSON.parse('{"team": "a", "__proto__": "x"}') as Record<string, string> } };
    expect(parseRecord(record)).toEqual({ ok: false, issues: [{ path: 'spec.tags.__proto__', message: '"__proto__" cannot be a key' }] });
    // Named with the record's other issues.
    const parsed = parseRecord({ ...record, generation: 0 });
    expect(!parsed.ok && parsed.issues.map((issue) => issue.path)).toEqual(['generation', 'spec.tags.__proto__']);
    // Under an array's item and a key holding ".", named as a field path names them.
    const nested = parseRecord({ ...newVolume('v1'), 'a.b': [0, JSON.parse('{"__proto__": 1}')] });
    expect(!nested.ok && nested.issues.at(-1)).toEqual({ path: '["a.b"].1.__proto__', message: '"__proto__" cannot be a key' });
    // Tags EC2 reports by that name are the volume's, not the client's input: read as they are.
    const observed = { ...newVolume('v1'), ebsVolumeId: 'vol-0123456789abcdef0', observed: { sizeGiB: 10, volumeType: 'gp3' as const, tags: JSON.parse('{"__proto__": "x"}') as Record<string, string> } };
    expect(parseRecord(observed).ok).toBe(true);
  });

  it('reads when an unanswered ModifyVolume was sent, and refuses a record whose time is not one', () => {
    const record = (modificationSentAt: unknown) => ({ ...newVolume('v1'), ebsVolumeId: 'vol-0123456789abcdef0', modificationSentAt });
    expect(parseRecord(record('2026-01-01T00:00:00.000Z'))).toMatchObject({ ok: true, value: { modificationSentAt: '2026-01-01T00:00:00.000Z' } });
    for (const bad of ['yesterday', 7, '']) {
      const parsed = parseRecord(record(bad));
      expect(!parsed.ok && parsed.issues.some((issue) => issue.path === 'modificationSentAt'), JSON.stringify(bad)).toBe(true);
    }
  });

  it('reads the earlier modification starts EC2 still counts, at most 3 ISO times, and refuses a record whose list is not one', () => {
    const record = (earlierModificationStarts: unknown) => ({
      ...newVolume('v1'),
      ebsVolumeId: 'vol-0123456789abcdef0',
      lastModificationStartedAt: '2026-01-01T03:00:00.000Z',
      earlierModificationStarts,
    });
    const three = ['2026-01-01T00:00:00.000Z', '2026-01-01T01:00:00.000Z', '2026-01-01T02:00:00.000Z'];
    expect(parseRecord(record(three))).toMatchObject({ ok: true, value: { earlierModificationStarts: three } });
    for (const bad of ['2026-01-01T00:00:00.000Z', ['yesterday'], [7], [...three, '2026-01-01T02:30:00.000Z']]) {
      const parsed = parseRecord(record(bad));
      expect(!parsed.ok && parsed.issues.some((issue) => issue.path.startsWith('earlierModificationStarts')), JSON.stringify(bad)).toBe(true);
    }
  });

  it('reads the failed modifications counted toward a target, and refuses a count or target that is not one', () => {
    const record = (failedModifications: unknown) => ({ ...newVolume('v1'), ebsVolumeId: 'vol-0123456789abcdef0', failedModifications });
    const counted = { target: { sizeGiB: 20, volumeType: 'gp3', iops: 4000 }, count: 3 };
    expect(parseRecord(record(counted))).toMatchObject({ ok: true, value: { failedModifications: counted } });
    for (const bad of [{ ...counted, count: 0 }, { count: 1 }, { ...counted, target: { sizeGiB: 20 } }, { ...counted, target: { ...counted.target, volumeType: 'gp9' } }, { ...counted, extra: 1 }]) {
      const parsed = parseRecord(record(bad));
      expect(!parsed.ok && parsed.issues.some((issue) => issue.path.startsWith('failedModifications')), JSON.stringify(bad)).toBe(true);
    }
  });

  it('reads the generation a retry was made for, and refuses one past the record\'s generation', () => {
    expect(parseRecord({ ...newVolume('v'), generation: 3, retriedGeneration: 3 })).toMatchObject({ ok: true, value: { retriedGeneration: 3 } });
    const ahead = parseRecord({ ...newVolume('v'), generation: 2, retriedGeneration: 9 });
    expect(ahead.ok).toBe(false);
    if (!ahead.ok) expect(ahead.issues).toEqual([{ path: 'retriedGeneration', message: "is 9, past the record's generation 2" }]);
    // An attachment written before it had a generation reads as 1.
    const { generation: _none, ...attachment } = newAttachment('v');
    expect(parseRecord({ ...attachment, retriedGeneration: 2 }).ok).toBe(false);
    expect(parseRecord({ ...attachment, retriedGeneration: 1 }).ok).toBe(true);
  });

  it('reads the tag keys an unrecorded CreateTags may have set, and refuses a record whose list is not one of tag keys', () => {
    const record = (tagKeysSet: unknown) => ({ ...newVolume('v1'), ebsVolumeId: 'vol-0123456789abcdef0', tagKeysSet });
    expect(parseRecord(record(['team', 'cost']))).toMatchObject({ ok: true, value: { tagKeysSet: ['team', 'cost'] } });
    for (const bad of ['team', [''], ['k'.repeat(128)], [7], Array.from({ length: 101 }, (_, i) => `k${i}`)]) {
      const parsed = parseRecord(record(bad));
      expect(parsed.ok, JSON.stringify(bad)).toBe(false);
      expect(!parsed.ok && parsed.issues.some((issue) => issue.path.startsWith('tagKeysSet'))).toBe(true);
    }
  });

  it('bounds every field, so the largest valid record still takes any status the system writes within the table item limit', () => {
    // Three UTF-8 bytes a UTF-16 code unit, the most a string of this length can take.
    const text = (length: number, prefix = '') => prefix + 'あ'.repeat(length - prefix.length);
    // Tags are counted in characters: four UTF-8 bytes a character (U+20000) is the most they can take.
    const wide = (length: number, prefix = '') => prefix + '\u{20000}'.repeat(length - prefix.length);
    const tags = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [wide(127, `k${i}-`), wide(256)]));
    const time = text(64);
    // A time the engine computes with is an ISO-8601 time, ASCII: its longest has 43 digits of fraction.
    const isoTime = (length: number) => `2026-01-01T00:00:00.${'0'.repeat(length - 21)}Z`;
    const spec = { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: tags(48) };
    const largest = {
      ...newVolume('v'.repeat(128)),
      spec,
      ebsVolumeId: 'vol-0123456789abcdef0',
      createRequest: { clientToken: 'x'.repeat(64), availabilityZone: 'us-east-1a', spec },
      observed: { sizeGiB: 10, volumeType: 'gp3', tags: tags(50) },
      tagKeysSet: Array.from({ length: 100 }, (_, i) => wide(127, `k${i}-`)),
      lastModificationStartedAt: isoTime(64),
      earlierModificationStarts: [isoTime(64), isoTime(64), isoTime(64)],
      modificationSentAt: isoTime(64),
      status: { state: 'available', attempts: 0, message: text(4 * MAX_STATUS_MESSAGE_CHARS), code: text(256), updatedAt: time, nextAttemptAt: isoTime(64), operationStartedAt: isoTime(64) },
      claim: { owner: text(256), expiresAt: 0 },
      createdAt: time,
    };
    expect(parseRecord(largest)).toMatchObject({ ok: true });
    const statusWrite = { state: 'available', attempts: 0, message: text(MAX_STATUS_MESSAGE_CHARS), code: text(256), updatedAt: time, nextAttemptAt: isoTime(64), operationStartedAt: isoTime(64) };
    expect(approximateItemBytes({ ...largest, status: statusWrite, previousStatus: largest.status })).toBeLessThan(TABLE.maxItemBytes);

    for (const [field, over] of [
      ['status.message', { status: { ...largest.status, message: text(4 * MAX_STATUS_MESSAGE_CHARS + 1) } }],
      ['status.code', { status: { ...largest.status, code: text(257) } }],
      ['status.updatedAt', { status: { ...largest.status, updatedAt: text(65) } }],
      ['status.nextAttemptAt', { status: { ...largest.status, nextAttemptAt: isoTime(65) } }],
      ['status.operationStartedAt', { status: { ...largest.status, operationStartedAt: 'soon' } }],
      ['claim.owner', { claim: { owner: text(257), expiresAt: 0 } }],
      ['createdAt', { createdAt: text(65) }],
      ['lastModificationStartedAt', { lastModificationStartedAt: isoTime(65) }],
      ['earlierModificationStarts.0', { earlierModificationStarts: [isoTime(65)] }],
      ['modificationSentAt', { modificationSentAt: isoTime(65) }],
      ['observed.tags', { observed: { sizeGiB: 10, volumeType: 'gp3', tags: tags(51) } }],
    ] as const) {
      const parsed = parseRecord({ ...largest, ...over });
      expect(!parsed.ok && parsed.issues.some((issue) => issue.path === field), field).toBe(true);
    }
  });
});

describe('IOPS and throughput as provisioned', () => {
  it("gives gp3 its baseline for a value left out (cleared, or not reported), and no value to a type that takes no setting", () => {
    expect(provisionedPerformance({ volumeType: 'gp3' })).toEqual(GP3_BASELINE);
    expect(provisionedPerformance({ volumeType: 'gp3', iops: 6000 })).toEqual({ iops: 6000, throughput: 125 });
    expect(provisionedPerformance({ volumeType: 'io2', iops: 1000 })).toEqual({ iops: 1000 });
    expect(provisionedPerformance({ volumeType: 'gp2', iops: 300 })).toEqual({});
  });

  it('names what differs as provisioned, and on a type change everything the new type takes', () => {
    expect(performanceChange({ volumeType: 'gp3', iops: 6000, throughput: 250 }, { volumeType: 'gp3' })).toEqual({ iops: 3000, throughput: 125 });
    expect(performanceChange({ volumeType: 'gp3', iops: 3000 }, { volumeType: 'gp3' })).toEqual({});
    expect(performanceChange({ volumeType: 'gp2', iops: 300 }, { volumeType: 'io1', iops: 300 })).toEqual({ iops: 300 });
    expect(performanceChange({ volumeType: 'gp3', iops: 6000 }, { volumeType: 'gp2' })).toEqual({});
    // A type change names the new type's values even where the old type held the same.
    expect(performanceChange({ volumeType: 'io1', iops: 3000 }, { volumeType: 'io2', iops: 3000 })).toEqual({ iops: 3000 });
    expect(performanceChange({ volumeType: 'io1', iops: 3000 }, { volumeType: 'gp3', iops: 3000 })).toEqual({ iops: 3000, throughput: 125 });
  });

  it("gives gp2 3 IOPS per GiB, at least 100 and at most 16,000", () => {
    expect(gp2BaselineIops(1)).toBe(100);
    expect(gp2BaselineIops(20)).toBe(100);
    expect(gp2BaselineIops(34)).toBe(102);
    expect(gp2BaselineIops(1_000)).toBe(3_000);
    expect(gp2BaselineIops(5_334)).toBe(16_000);
    expect(gp2BaselineIops(16_384)).toBe(16_000);
  });
});

describe('specChangeIssues: a spec judged against the volume as it is in EBS', () => {
  const createdSpec: VolumeSpec = { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: { a: 'b' } };
  const inEbs = (extra: Partial<VolumeRecord> = {}): Pick<VolumeRecord, 'spec' | 'createRequest' | 'ebsVolumeId' | 'observed'> => ({
    spec: createdSpec,
    createRequest: { clientToken: 'ebsp-t', availabilityZone: 'us-east-1a', spec: createdSpec },
    ebsVolumeId: 'vol-0123456789abcdef0',
    observed: { sizeGiB: 100, volumeType: 'gp3', iops: 3000, throughput: 125 },
    ...extra,
  });

  it('has no baseline before CreateVolume is asked for: any valid spec may be created', () => {
    const uncreated = { spec: createdSpec };
    expect(ebsBaseline(uncreated)).toBeUndefined();
    expect(specChangeIssues(uncreated, { ...createdSpec, sizeGiB: 10, tags: { c: 'd' } })).toEqual([]);
    expect(specChangeIssues(uncreated, { ...createdSpec, sizeGiB: 0 }).map((i) => i.path)).toContain('spec.sizeGiB');
  });

  it('takes the fields fixed at creation from what CreateVolume was asked for, size and performance from what EC2 reports', () => {
    const grownOutside = inEbs({ observed: { sizeGiB: 500, volumeType: 'gp3', iops: 3000, throughput: 125 } });
    expect(ebsBaseline(grownOutside)).toEqual({ availabilityZone: 'us-east-1a', tags: { a: 'b' }, sizeGiB: 500, volumeType: 'gp3', iops: 3000, throughput: 125 });
    expect(specChangeIssues(grownOutside)).toEqual([{ path: 'spec.sizeGiB', message: 'EBS volumes can only grow: 500 GiB cannot become 100 GiB' }]);
    expect(specChangeIssues(grownOutside, { ...createdSpec, sizeGiB: 600 })).toEqual([]);
    // The spec a client wrote since does not move the baseline: an encryption changed earlier stays a change.
    expect(specChangeIssues(inEbs({ spec: { ...createdSpec, encrypted: true } }), { ...createdSpec, sizeGiB: 200, encrypted: true })).toEqual([
      { path: 'spec.encrypted', message: 'is fixed when the volume is created' },
    ]);
  });

  it('reads encrypted: false and multiAttach: false as left out, as CreateVolume does: no change of a fixed field', () => {
    const spelt = { ...createdSpec, encrypted: false, multiAttach: false };
    expect(validateSpecChange(spelt, { ...createdSpec, sizeGiB: 200 })).toEqual([]);
    expect(validateSpecChange(createdSpec, { ...spelt, sizeGiB: 200 })).toEqual([]);
    expect(validateSpecChange(spelt, { ...createdSpec, encrypted: true }).map((i) => i.path)).toEqual(['spec.encrypted']);
  });

  it('judges a size against the size a modification already sent takes the volume to; its own spec stays valid', () => {
    const modifying = { ...inEbs({ spec: { ...createdSpec, sizeGiB: 400 } }), status: { state: 'modifying' as const } };
    expect(specChangeIssues(modifying)).toEqual([]);
    expect(specChangeIssues(modifying, { ...createdSpec, sizeGiB: 200 })).toEqual([
      { path: 'spec.sizeGiB', message: 'EBS volumes can only grow: 400 GiB cannot become 200 GiB (a modification is under way, the spec asking for 400 GiB, and EC2 reports 100 GiB until it is done)' },
    ]);
    expect(specChangeIssues(modifying, { ...createdSpec, sizeGiB: 500 })).toEqual([]);
    // Below what EC2 reports, the shrink is named as before.
    expect(specChangeIssues(modifying, { ...createdSpec, sizeGiB: 50 })).toEqual([{ path: 'spec.sizeGiB', message: 'EBS volumes can only grow: 100 GiB cannot become 50 GiB' }]);
    // A ModifyVolume sent whose answer is not recorded counts too; a volume not modifying is judged by what EC2 reports.
    expect(specChangeIssues({ ...modifying, status: { state: 'in-use' }, modificationSentAt: '2026-01-01T00:00:00.000Z' }, { ...createdSpec, sizeGiB: 200 })).toHaveLength(1);
    expect(specChangeIssues({ ...modifying, status: { state: 'in-use' } }, { ...createdSpec, sizeGiB: 200 })).toEqual([]);
  });

  it('judges a volume being created against what it is being created with', () => {
    const creating = { spec: createdSpec, createRequest: { clientToken: 'ebsp-t', availabilityZone: 'us-east-1a', spec: createdSpec } };
    expect(specChangeIssues(creating, { ...createdSpec, sizeGiB: 50 }).map((i) => i.path)).toEqual(['spec.sizeGiB']);
    expect(specChangeIssues(creating, { ...createdSpec, sizeGiB: 200 })).toEqual([]);
  });

  it('takes an IOPS or throughput the spec leaves out as what the volume has: a magnetic volume left alone is no modification', () => {
    const magnetic: VolumeSpec = { sizeGiB: 10, volumeType: 'standard', availabilityZone: 'us-east-1a' };
    expect(specChangeIssues({ spec: magnetic, createRequest: { clientToken: 'ebsp-t', availabilityZone: 'us-east-1a', spec: magnetic }, ebsVolumeId: 'vol-0123456789abcdef0', observed: { sizeGiB: 10, volumeType: 'standard', iops: 100 } })).toEqual([]);
  });

  it('takes tags in another key order for the same tags: the request read back from the table need not keep their order', () => {
    const tagged: VolumeSpec = { ...createdSpec, tags: { team: 'storage', env: 'prod', app: 'db' } };
    const readBack = inEbs({ createRequest: { clientToken: 'ebsp-t', availabilityZone: 'us-east-1a', spec: { ...tagged, tags: { app: 'db', env: 'prod', team: 'storage' } } } });
    expect(specChangeIssues(readBack, { ...tagged, sizeGiB: 200 })).toEqual([]);
    expect(validateSpecChange({ ...tagged, tags: { env: 'prod', app: 'db', team: 'storage' } }, tagged)).toEqual([]);
  });

  it('judges a volume an earlier version asked CreateVolume for without recording the request against its spec as it is', () => {
    const sentUnrecorded = { spec: createdSpec, availabilityZone: 'us-east-1a', observedGeneration: 1 };
    expect(ebsBaseline(sentUnrecorded)).toEqual(createdSpec);
    expect(specChangeIssues(sentUnrecorded, { ...createdSpec, sizeGiB: 50 }).map((i) => i.path)).toEqual(['spec.sizeGiB']);
    // A create EC2 refused (this version forgets the AZ and the generation with the request): any valid spec goes.
    expect(ebsBaseline({ spec: createdSpec, observedGeneration: 1 })).toBeUndefined();
  });

  it('judges the fixed fields of a volume created before they were recorded from its spec as it is', () => {
    const legacy = inEbs({ createRequest: undefined, spec: { ...createdSpec, tags: { a: 'c' } } });
    expect(specChangeIssues(legacy)).toEqual([]);
  });
});

describe('parseRecord', () => {
  it('reads a record a client wrote directly, giving the system fields their defaults', () => {
    const result = parseRecord({ kind: 'volume', volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, life: 'alive', generation: 1 });
    expect(result).toEqual({
      ok: true,
      value: expect.objectContaining({ status: { state: 'pending', attempts: 0, updatedAt: '' }, version: 0 }),
    });
  });

  it('says a field missing from a record written into the table is required (and which values it takes), not that its input is of the wrong type', () => {
    const spec = { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' };
    expect(parseRecord({ kind: 'volume', volumeId: 'data-1', life: 'alive', generation: 1 })).toEqual({ ok: false, issues: [{ path: 'spec', message: 'is required' }] });
    expect(parseRecord({ kind: 'volume', volumeId: 'data-1', spec, generation: 1 })).toEqual({ ok: false, issues: [{ path: 'life', message: 'is required: one of alive, dying' }] });
    expect(parseRecord({ kind: 'volume', volumeId: 'data-1', spec: { sizeGiB: 10 }, life: 'alive', generation: 1 })).toEqual({
      ok: false,
      issues: [{ path: 'spec.volumeType', message: 'is required: one of gp2, gp3, io1, io2, st1, sc1, standard' }],
    });
    // A value that is there but wrong is named as such.
    expect(parseRecord({ kind: 'volume', volumeId: 'data-1', spec, life: 'gone', generation: 1 })).toEqual({ ok: false, issues: [{ path: 'life', message: expect.stringMatching(/^Invalid option/) }] });
  });

  it('refuses a volume still to be created that names no place, but lets a dying or created one through', () => {
    const unplaced = { kind: 'volume', volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3' }, life: 'alive', generation: 1 };
    expect(parseRecord(unplaced)).toEqual({
      ok: false,
      issues: [{ path: 'spec.availabilityZone', message: 'is required unless placementInstanceId names an instance whose AZ the volume goes in' }],
    });
    expect(parseRecord({ ...unplaced, spec: { ...unplaced.spec, placementInstanceId: 'i-0123456789abcdef0' } }).ok).toBe(true);
    // Asked to go: removed without EC2, so no place is needed.
    expect(parseRecord({ ...unplaced, life: 'dying' }).ok).toBe(true);
    // Created already (an older record): where it is is known.
    expect(parseRecord({ ...unplaced, ebsVolumeId: 'vol-0123456789abcdef0', availabilityZone: 'us-east-1a' }).ok).toBe(true);
  });

  it('reads a dying volume whose spec EBS would refuse, so it can be deleted; an alive one stays invalid', () => {
    const raw = { ...newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', life: 'dying' }), spec: { sizeGiB: 0, volumeType: 'gp3' } };
    const dying = parseRecord(raw);
    expect(dying.ok).toBe(true);
    const alive = parseRecord({ ...raw, life: 'alive' });
    expect(alive.ok).toBe(false);
    if (!alive.ok) expect(alive.issues.map((issue) => issue.path)).toContain('spec.sizeGiB');
    // Structure is still required, and so is everything the system reads to delete it.
    expect(parseRecord({ ...raw, spec: { sizeGiB: 'big', volumeType: 'gp3' } }).ok).toBe(false);
    expect(parseRecord({ ...raw, ebsVolumeId: 'not-a-volume' }).ok).toBe(false);
  });

  it('refuses a record in a final state (deleted, detached), which the system removes rather than writes, alive or dying', () => {
    const issue = (state: string) => ({ path: 'status.state', message: `is ${state}, a final state the system never writes: a record that reaches it is removed` });
    const deleted = { state: 'deleted', attempts: 0, updatedAt: '' };
    const volume = newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0' });
    expect(parseRecord({ ...volume, status: deleted })).toEqual({ ok: false, issues: [issue('deleted')] });
    expect(parseRecord({ ...volume, life: 'dying', status: deleted })).toEqual({ ok: false, issues: [issue('deleted')] });
    expect(parseRecord({ ...volume, life: 'dying', spec: { sizeGiB: 0, volumeType: 'gp3' }, status: deleted }).ok).toBe(false);
    const attachment = newAttachment('data-1', { device: '/dev/sdf' });
    for (const life of ['alive', 'dying'] as const)
      expect(parseRecord({ ...attachment, life, status: { state: 'detached', attempts: 0, updatedAt: '' } })).toEqual({ ok: false, issues: [issue('detached')] });
    // Every other state reads as before.
    expect(parseRecord({ ...volume, status: { state: 'available', attempts: 0, updatedAt: '' } }).ok).toBe(true);
    expect(parseRecord({ ...attachment, status: { state: 'attached', attempts: 0, updatedAt: '' } }).ok).toBe(true);
  });

  it('refuses an attachment whose forced detach time is no time: read as sent and accepted, it would keep the forced call from being made', () => {
    const attachment = newAttachment('data-1', { life: 'dying', forceDetach: true, device: '/dev/sdf' });
    expect(parseRecord({ ...attachment, forceDetachSentAt: '2026-01-01T00:00:00.000Z' }).ok).toBe(true);
    for (const bad of ['soon', '', '2026-01-01'])
      expect(parseRecord({ ...attachment, forceDetachSentAt: bad })).toEqual({ ok: false, issues: [{ path: 'forceDetachSentAt', message: 'must be an ISO-8601 time like 2026-01-01T12:00:00.000Z' }] });
  });

  it('names every problem of a bad record', () => {
    const result = parseRecord({
      kind: 'volume',
      volumeId: 'data 1',
      spec: { sizeGiB: 10, volumeType: 'gp3', iops: 90_000 },
      life: 'zombie',
      generation: 0,
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect([...new Set(result.issues.map((i) => i.path))].sort()).toEqual(['generation', 'life', 'spec.iops', 'volumeId']);
  });

  it('reads the CreateVolume request an executor recorded, judging its spec by its structure only, and names a malformed one\'s fields', () => {
    const base = { kind: 'volume', volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, life: 'alive', generation: 2 };
    // Sent under limits other than today's (20 000 IOPS on 10 GiB of gp3): still the request to repeat.
    const createRequest = { clientToken: 'ebsp-data-1-0123456789ab-g1', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3', iops: 20_000 } };
    const good = parseRecord({ ...base, createRequest });
    expect(good.ok && good.value).toMatchObject({ createRequest });
    const bad = parseRecord({ ...base, createRequest: { ...createRequest, clientToken: 'x'.repeat(65), spec: { sizeGiB: 10 } } });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path).sort()).toEqual(['createRequest.clientToken', 'createRequest.spec.volumeType']);
  });

  it('reads an attachment without a generation as generation 1, and refuses a generation below 1', () => {
    const older = parseRecord({ kind: 'attachment', volumeId: 'v', instanceId: 'i-0123456789abcdef0', life: 'alive' });
    expect(older.ok && older.value).toMatchObject({ kind: 'attachment', generation: 1 });
    const retried = parseRecord({ kind: 'attachment', volumeId: 'v', instanceId: 'i-0123456789abcdef0', life: 'alive', generation: 3 });
    expect(retried.ok && retried.value).toMatchObject({ generation: 3 });
    const bad = parseRecord({ kind: 'attachment', volumeId: 'v', instanceId: 'i-0123456789abcdef0', life: 'alive', generation: 0 });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path)).toEqual(['generation']);
  });

  it("reads the instance description an executor left on an attachment, and names a malformed one's fields", () => {
    const base = { kind: 'attachment', volumeId: 'v', instanceId: 'i-0123456789abcdef0', life: 'alive' };
    const seen = { availabilityZone: 'eu-west-1a', state: 'running', otherDevices: ['/dev/xvda', '/dev/sda1'], describedAt: 1_767_225_600_000 };
    const good = parseRecord({ ...base, instanceSeen: seen });
    expect(good.ok && good.value).toMatchObject({ instanceSeen: seen });
    const bad = parseRecord({ ...base, instanceSeen: { ...seen, state: 'terminated', describedAt: 'yesterday', extra: 1 } });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path).sort()).toEqual(['instanceSeen.describedAt', 'instanceSeen.extra', 'instanceSeen.state']);
  });

  it("reads a forced detach and the time its call was sent, and names a malformed one's fields", () => {
    const base = { kind: 'attachment', volumeId: 'v', instanceId: 'i-0123456789abcdef0', life: 'dying' };
    const good = parseRecord({ ...base, forceDetach: true, forceDetachSentAt: '2026-01-01T00:00:00.000Z' });
    expect(good.ok && good.value).toMatchObject({ forceDetach: true, forceDetachSentAt: '2026-01-01T00:00:00.000Z' });
    expect(parseRecord({ ...base, forceDetach: false }).ok).toBe(true);
    const bad = parseRecord({ ...base, forceDetach: 'yes', forceDetachSentAt: 17 });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path).sort()).toEqual(['forceDetach', 'forceDetachSentAt']);
  });

  it('checks attachments and rejects unknown kinds', () => {
    expect(parseRecord({ kind: 'attachment', volumeId: 'v', instanceId: 'i-0123456789abcdef0', life: 'dying', requestedDevice: '/dev/sdz' }).ok).toBe(true);
    const bad = parseRecord({ kind: 'attachment', volumeId: 'v', instanceId: 'host-1', life: 'alive', requestedDevice: '/dev/sda', device: '' });
    expect(bad.ok ? [] : bad.issues.map((i) => i.path).sort()).toEqual(['device', 'instanceId', 'requestedDevice']);
    // The device is as EC2 shows it: a name attached outside the system under one it would not allocate is still read.
    expect(parseRecord({ kind: 'attachment', volumeId: 'v', instanceId: 'i-0123456789abcdef0', life: 'alive', device: 'xvdh' }).ok).toBe(true);
    expect(parseRecord({ kind: 'snapshot' }).ok).toBe(false);
    expect(parseRecord('nonsense').ok).toBe(false);
  });

  it('judges a frozen record once and hands every caller the same frozen result; a record that can change is judged afresh', async () => {
    const written = { kind: 'volume', volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: { team: 'a' } }, life: 'alive', generation: 1 };
    // The memory store's items are frozen: read twice, the same item.
    const store = new MemoryRecordStore();
    store.putRaw(written);
    store.putRaw({ ...written, volumeId: 'data-2', spec: { ...written.spec, sizeGiB: -1 } });
    const stored = await store.get({ kind: 'volume', volumeId: 'data-1' });
    const first = parseRecord(stored);
    expect(parseRecord(await store.get({ kind: 'volume', volumeId: 'data-1' }))).toBe(first);
    expect(first.ok && first.value.kind === 'volume' ? first.value.spec.tags : undefined).toEqual({ team: 'a' });
    // Shared by every caller: a change to it would change what all of them read.
    expect(() => {
      (first as { value: VolumeRecord }).value.spec.tags!.team = 'b';
    }).toThrow(TypeError);
    const invalid = await store.get({ kind: 'volume', volumeId: 'data-2' });
    const refused = parseRecord(invalid);
    expect(refused.ok ? [] : refused.issues.map((issue) => issue.path)).toEqual(['spec.sizeGiB']);
    expect(parseRecord(invalid)).toBe(refused);
    expect(Object.isFrozen(refused.ok ? undefined : refused.issues[0])).toBe(true);

    const open = structuredClone(written);
    expect(parseRecord(open).ok).toBe(true);
    open.spec.sizeGiB = -1;
    expect(parseRecord(open).ok).toBe(false);
  });
});
