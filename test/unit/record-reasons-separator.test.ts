/**
 * A record's reasons (a rejection's, a refused spec's) are listed on one line with
 * `REASON_SEPARATOR` between them: no reason the system words holds it, so a list splits back into
 * its reasons. Checked on the reasons of each kind of fault a record can have, and on every string
 * the modules that word them hold.
 */
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { VolumeRecord, VolumeSpec } from '../../lib/domain/records.js';
import { describeValidationIssues, parseRecord, REASON_SEPARATOR, specChangeIssues, validateSpecChange, validateVolumeSpec, type ValidationIssue } from '../../lib/domain/validation.js';
import { judgeRecord } from '../../lib/engine/rejection.js';
import { newAttachment, newVolume, START } from './engine-fixtures.js';

const LEASE_MS = 180_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The reasons of a record that is not valid: its issues, as `judgeRecord` lists them. */
function issuesOf(raw: unknown): ValidationIssue[] {
  const parsed = parseRecord(raw);
  return parsed.ok ? [] : parsed.issues;
}

/** Every leaf of `value` replaced in turn by each of `values`, and an unknown field added to each object. */
function variants(value: unknown, values: readonly unknown[]): unknown[] {
  if (value === null || typeof value !== 'object') return [...values];
  const out: unknown[] = [];
  const entries = Object.entries(value);
  for (const [key, inner] of entries) {
    for (const changed of variants(inner, values)) out.push(Array.isArray(value) ? value.map((v, i) => (String(i) === key ? changed : v)) : { ...value, [key]: changed });
  }
  if (!Array.isArray(value)) out.push({ ...value, unknownField: 1 });
  return out;
}

const created: VolumeRecord = newVolume(
  'data-1',
  {
    ebsVolumeId: 'vol-0123456789abcdef0',
    status: { state: 'modifying', attempts: 1, updatedAt: iso(START), operationStartedAt: iso(START), code: 'Throttled', message: 'waiting', nextAttemptAt: iso(START + 60_000) },
    observed: { sizeGiB: 10, volumeType: 'gp3', iops: 3000, throughput: 125, tags: { team: 'a' } },
    observedGeneration: 1,
    retriedGeneration: 1,
    availabilityZone: 'eu-west-1a',
    createRequest: { clientToken: 'ebsp-token', availabilityZone: 'eu-west-1a', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'eu-west-1a' } },
    lastModificationStartedAt: iso(START),
    earlierModificationStarts: [iso(START - 60_000)],
    modificationSentAt: iso(START),
    failedModifications: { target: { sizeGiB: 20, volumeType: 'gp3' }, count: 1 },
    tagKeysSet: ['team'],
    claim: { owner: 'executor-1', expiresAt: START + LEASE_MS },
  },
  { sizeGiB: 20, iops: 3000, throughput: 125, tags: { team: 'a' } },
);

const attachment = newAttachment('data-1', { device: '/dev/sdf', claim: { owner: 'executor-1', expiresAt: START + LEASE_MS } });

describe('record reasons and their separator', () => {
  it('the records swept are valid as they are', () => {
    expect(issuesOf(created)).toEqual([]);
    expect(issuesOf(attachment)).toEqual([]);
  });

  it('no reason of a field that is not valid holds it: every field of a volume and an attachment record given a value of each wrong kind', () => {
    const wrong = [null, -1, 0, 1.5, 1e20, '', 'x'.repeat(300), 'not-a-time', true, [], {}, ['x'], { x: 1 }];
    const records = [...variants(created, wrong), ...variants(attachment, wrong), ...variants({ ...created, life: 'dying' }, wrong)];
    const messages = new Set(records.flatMap((record) => issuesOf(record).map((issue) => issue.message)));
    expect(messages.size).toBeGreaterThan(20);
    for (const message of messages) expect(message).not.toContain(REASON_SEPARATOR);
  });

  it("no reason of a claim or a time the system did not write holds it: the rejection splits into one reason per fault", () => {
    const ahead = iso(START + 10 * 60_000);
    const status = { ...created.status, updatedAt: ahead, operationStartedAt: ahead };
    const judged = judgeRecord({ ...created, status, modificationSentAt: ahead, claim: { owner: 'executor-1', expiresAt: START + 10 * LEASE_MS } }, START, LEASE_MS);
    const reasons = judged.rejection?.split(REASON_SEPARATOR) ?? [];
    expect(reasons.map((reason) => reason.slice(0, reason.indexOf(':')))).toEqual(['claim.expiresAt', 'status.updatedAt', 'status.operationStartedAt', 'modificationSentAt']);
  });

  it('no reason a spec change is refused for holds it: a shrink below what a modification or a creation under way reaches included', () => {
    const spec: VolumeSpec = { sizeGiB: 100, volumeType: 'io1', iops: 1000, multiAttach: true, availabilityZone: 'eu-west-1a' };
    const changed: VolumeSpec = { sizeGiB: 50, volumeType: 'io2', iops: 2000, availabilityZone: 'eu-west-1b', encrypted: true, snapshotId: 'snap-0123456789abcdef0' };
    const modifying = { ...created, spec: { ...created.spec, sizeGiB: 400 }, observed: { sizeGiB: 100, volumeType: 'gp3' as const } };
    // Created at 400 GiB, EC2 reporting 100 GiB while it creates the volume from a snapshot, say.
    const creating = {
      spec: { sizeGiB: 400, volumeType: 'gp3' as const },
      createRequest: { clientToken: 't', availabilityZone: 'eu-west-1a', spec: { sizeGiB: 400, volumeType: 'gp3' as const } },
      observed: { sizeGiB: 100, volumeType: 'gp3' as const },
    };
    const refused = [
      ...validateSpecChange(spec, changed),
      ...validateSpecChange(spec, { ...spec, sizeGiB: 200, iops: 3000 }),
      ...specChangeIssues(modifying, { ...created.spec, sizeGiB: 200 }),
      ...specChangeIssues(creating, { sizeGiB: 200, volumeType: 'gp3' }),
      ...(validateVolumeSpec({ sizeGiB: 0, volumeType: 'gp3', iops: 1, throughput: 1, tags: { 'aws:x': 'y' } }) as { issues?: ValidationIssue[] }).issues ?? [],
    ];
    expect(refused.map((issue) => issue.message)).toContainEqual(expect.stringContaining('a modification is under way'));
    expect(refused.map((issue) => issue.message)).toContainEqual(expect.stringContaining('the volume was created at 400 GiB'));
    for (const issue of refused) expect(issue.message).not.toContain(REASON_SEPARATOR);
    expect(describeValidationIssues(refused).split(REASON_SEPARATOR)).toHaveLength(refused.length);
  });

  it('no string of the modules that word the reasons holds it, save the separator itself, the tag rules (a description) and a log line', () => {
    const found: string[] = [];
    for (const file of ['lib/domain/validation.ts', 'lib/engine/rejection.ts']) {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
      const visit = (node: ts.Node): void => {
        if (ts.isVariableDeclaration(node) && ['REASON_SEPARATOR', 'TAG_RULES', 'RECORD_TOO_LARGE_LOG'].includes(node.name.getText())) return;
        if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
          if (node.text.includes(REASON_SEPARATOR)) found.push(`${file}: ${node.text}`);
        }
        ts.forEachChild(node, visit);
      };
      visit(source);
    }
    expect(found).toEqual([]);
  });
});
