/**
 * Records as the API reads them from the table. The table is input: a client may write a record
 * straight into it, so every record the API reads goes through the domain's record parser, the one
 * the watcher applies. A valid record is used as parsed, the fields the system has not written yet
 * read with their defaults (`pending` with no attempts, version 0, no creation time), as the stores
 * read them in write conditions too (a missing version matches 0). An invalid record is never acted on: a request naming it
 * is a 409 `invalid-record` with the reasons, and a list shows it as the watcher marks it (`error`,
 * code `InvalidRecord`, the reasons), so a record the watcher has not seen yet reads the same.
 */
import type { AttachmentRecord, ProvisionerRecord, VolumeRecord } from '../domain/records.js';
import { describeValidationIssues, parseRecord, type ValidationIssue } from '../domain/validation.js';
import type { WriteCondition } from '../engine/ports.js';
import { INVALID_RECORD_CODE, invalidRecordStatus } from '../engine/status.js';
import { ApiProblem, type FieldIssue } from './problem.js';
import type { InvalidAttachmentView, InvalidVolumeView } from './schemas.js';

/** The fields a write condition pins, as the item holds them (generation, creation time: absent when not written yet). */
export interface Stored {
  /** 0 for an item written without one, as the stores match it. */
  version: number;
  generation?: number;
  createdAt?: string;
}

/** A record read from the table: valid, as parsed, or not, with the reasons. */
export type Read<R extends ProvisionerRecord> =
  | { ok: true; record: R; stored: Stored }
  | { ok: false; issues: ValidationIssue[]; raw: ProvisionerRecord };

/** A valid record and what its item holds. */
export type Valid<R extends ProvisionerRecord> = Extract<Read<R>, { ok: true }>;

/** A record that is not valid, with the reasons. */
export type Invalid<R extends ProvisionerRecord> = Extract<Read<R>, { ok: false }>;

/** `raw` (an item as the store returns it, unvalidated) read as a record of `kind`. */
export function readRecord<K extends ProvisionerRecord['kind']>(raw: ProvisionerRecord, kind: K): Read<Extract<ProvisionerRecord, { kind: K }>> {
  type R = Extract<ProvisionerRecord, { kind: K }>;
  const parsed = parseRecord(raw);
  if (!parsed.ok) return { ok: false, issues: parsed.issues, raw };
  if (parsed.value.kind !== kind) return { ok: false, issues: [{ path: 'kind', message: `must be ${kind}` }], raw };
  return { ok: true, record: parsed.value as R, stored: storedOf(raw) };
}

/**
 * Whether a record that is not valid would be once dying: it is alive, and its faults are all ones
 * a delete does not use (a volume's spec beyond the EBS limits; an attachment's requested device
 * EC2 refuses, asked for before device names were held to EC2's). The system deletes such a volume,
 * and detaches such an attachment, all the same, so a delete may mark it.
 */
export function validOnceDying<R extends ProvisionerRecord>(read: Read<R>): Valid<R> | undefined {
  if (read.ok || read.raw.life !== 'alive') return undefined;
  const dying = readRecord({ ...read.raw, life: 'dying' }, read.raw.kind) as Read<R>;
  return dying.ok ? { ...dying, record: { ...dying.record, life: 'alive' } } : undefined;
}

function storedOf(raw: ProvisionerRecord): Stored {
  const item = raw as unknown as Record<string, unknown>;
  const { version, generation, createdAt } = item;
  return {
    version: typeof version === 'number' ? version : 0,
    ...(typeof generation === 'number' ? { generation } : {}),
    ...(typeof createdAt === 'string' ? { createdAt } : {}),
  };
}

/**
 * The write condition that the record is still the one read at the generation read: its
 * client-owned part is unchanged, and it was not deleted and created again meanwhile. An
 * attachment written before it had a generation is pinned by its version instead. A creation
 * time the item lacks is not pinned (a condition on it would never hold).
 */
export function generationRead(stored: Stored): WriteCondition {
  const created = stored.createdAt !== undefined ? { createdAt: stored.createdAt } : {};
  return stored.generation !== undefined ? { generation: stored.generation, ...created } : { version: stored.version, ...created };
}

/**
 * The write condition that nothing wrote the record since it was read: its version, and its
 * creation time (a record deleted and created again starts its version again).
 */
export function versionRead(stored: Stored): WriteCondition {
  return stored.createdAt !== undefined ? { version: stored.version, createdAt: stored.createdAt } : { version: stored.version };
}

/** Field issues listed in an `invalid-record` problem; the detail counts the rest. */
const MAX_LISTED_ISSUES = 100;

/** The issues of a record in the table, as field issues: `record.<field>`. */
function recordIssues(issues: readonly ValidationIssue[]): FieldIssue[] {
  return issues.map((issue) => ({ path: issue.path ? `record.${issue.path}` : 'record', message: issue.message }));
}

/**
 * The 409 for a request naming a record that is not valid (`label` names it, e.g. `volume data-01`;
 * `why`, when the request names another record, says why this one matters): the reasons in `detail`
 * (bounded as a status message is) and in `errors` (the first 100), and what to do. A live volume
 * whose faults are all ones a delete does not use (`validOnceDying`), and a live attachment whose
 * faults are all ones a detach does not use, may be deleted through the API as well, which the detail says.
 */
export function invalidRecordProblem(label: string, read: Invalid<ProvisionerRecord>, why?: string): ApiProblem {
  const errors = recordIssues(read.issues);
  const listed = errors.slice(0, MAX_LISTED_ISSUES);
  if (errors.length > listed.length) listed.push({ path: 'record', message: `${errors.length - listed.length} more issues` });
  const problem = `the record of ${label} in the table is not valid, so nothing is done with it: ${describeValidationIssues(errors)}`;
  const { raw } = read;
  const deletable = !validOnceDying(read)
    ? ''
    : raw.kind === 'volume'
      ? `; or delete the volume (DELETE /volumes/${raw.volumeId}): its faults are all ones a delete does not use`
      : `; or delete the attachment (DELETE /volumes/${raw.volumeId}/attachments/${raw.instanceId}): its faults are all ones a detach does not use`;
  return new ApiProblem('invalid-record', `${why ? `${why}, and ${problem}` : problem}. Correct it in the table, or remove it there${deletable}`, listed);
}

/** `read` as valid, or the 409 for it. */
export function validOrThrow<R extends ProvisionerRecord>(read: Read<R>, label: string): Valid<R> {
  if (!read.ok) throw invalidRecordProblem(label, read);
  return read;
}

/**
 * The status of a record that is not valid, as the watcher writes it: `error`, code
 * `InvalidRecord`, the reasons. The one the watcher wrote keeps its time.
 */
function invalidStatus(read: Extract<Read<ProvisionerRecord>, { ok: false }>, nowMs: number) {
  const status = invalidRecordStatus(nowMs, describeValidationIssues(read.issues));
  const written = (read.raw as { status?: unknown }).status as Record<string, unknown> | null | undefined;
  const same =
    typeof written === 'object' && written !== null &&
    written.state === 'error' && written.code === INVALID_RECORD_CODE && written.message === status.message && typeof written.updatedAt === 'string';
  return same ? { ...status, updatedAt: written.updatedAt as string } : status;
}

/** What a list shows of a volume record that is not valid. */
export function invalidVolumeView(read: Extract<Read<VolumeRecord>, { ok: false }>, nowMs: number): InvalidVolumeView {
  return { volumeId: read.raw.volumeId, invalid: true, status: invalidStatus(read, nowMs) };
}

/** What a list shows of an attachment record that is not valid. */
export function invalidAttachmentView(read: Extract<Read<AttachmentRecord>, { ok: false }>, nowMs: number): InvalidAttachmentView {
  const raw = read.raw as AttachmentRecord;
  return { volumeId: raw.volumeId, instanceId: raw.instanceId, invalid: true, status: invalidStatus(read, nowMs) };
}
