/**
 * The volume and attachment lifecycles as explicit transition tables.
 *
 * This module is the only place that decides a state transition: the planner, the executor and
 * the watcher name an event and ask `nextVolumeState` / `nextAttachmentState` where it leads. An
 * event that is not legal in the current state throws, so a bug surfaces instead of writing a
 * status nobody can explain. docs/state-machines.md is generated from these tables
 * (`npm run docs`) and a test fails when it drifts.
 */
import { ATTACHMENT_STATES, VOLUME_STATES, type AttachmentState, type VolumeState } from './records.js';

export const VOLUME_EVENTS = [
  /** The executor is about to call CreateVolume (written before the call, so a crash leaves a trace). */
  'create-started',
  /** EC2 reports the volume `available`. */
  'observed-available',
  /** EC2 reports the volume `in-use` (attached somewhere). */
  'observed-in-use',
  /** ModifyVolume was accepted, or EC2 is found already modifying toward the spec (its answer was lost). */
  'modify-started',
  /** DeleteVolume was accepted (or the volume was already being deleted). */
  'delete-started',
  /** EC2 no longer knows the volume, or reports it `deleted`. */
  'observed-deleted',
  /** A dying volume of which EC2 made nothing is removed without any further EC2 call. */
  'removed-uncreated',
  /**
   * EC2 finished deleting a volume its client set back to alive meanwhile (written straight into
   * the table): the data is gone, so the record stays and says so; its retry creates a new, empty volume.
   */
  'deleted-while-wanted',
  /** Attempt budget or maximum age spent, or an error retrying cannot fix. */
  'failed',
  /** The client bumped `generation` (or changed the spec) after a terminal error. */
  'retry-requested',
] as const;
export type VolumeEvent = (typeof VOLUME_EVENTS)[number];

export const ATTACHMENT_EVENTS = [
  /** The executor is about to call AttachVolume (written before the call). */
  'attach-started',
  /** AttachVolume failed; the attachment waits for its next attempt. */
  'attach-failed',
  /** EC2 reports the volume attached to the instance. */
  'observed-attached',
  /** EC2 reports no attachment of the volume to the instance (or no longer has the volume). */
  'observed-detached',
  /** DetachVolume was accepted. */
  'detach-started',
  /**
   * A forced DetachVolume was accepted for a detach already under way (the client asked for force
   * while EC2 could not finish it): the detach goes on, counted afresh from that call.
   */
  'force-detach-started',
  /** A dying attachment that never reached EC2 is removed without any EC2 call. */
  'removed-unattached',
  /**
   * EC2 finished detaching an attachment its client set back to alive meanwhile (written straight
   * into the table): as any client change during an operation, carried out once EC2 is done.
   */
  'detached-while-wanted',
  /**
   * Its volume record was removed from the table (written straight into it, not through the API)
   * while EC2 may hold the volume attached: with the record went the EC2 volume id, so the system
   * no longer looks after that volume (deleting the attachment detaches it, found by its tags).
   */
  'volume-record-removed',
  /** Attempt budget or maximum age spent, or an error retrying cannot fix (e.g. AZ mismatch). */
  'failed',
  /** The client bumped the attachment's `generation` after a terminal error. */
  'retry-requested',
] as const;
export type AttachmentEvent = (typeof ATTACHMENT_EVENTS)[number];

export interface Transition<S extends string, E extends string> {
  from: S;
  event: E;
  to: S;
  /** Why this edge exists, for the generated docs. */
  why: string;
}

/** Every legal volume transition. `deleted` is final: the record is removed right after. */
export const VOLUME_TRANSITIONS: readonly Transition<VolumeState, VolumeEvent>[] = [
  { from: 'pending', event: 'create-started', to: 'creating', why: 'CreateVolume about to be called' },
  { from: 'pending', event: 'removed-uncreated', to: 'deleted', why: 'dying before any EC2 call' },
  { from: 'pending', event: 'failed', to: 'error', why: 'placement cannot be resolved, the retried volume is in error in EC2 or not its own, or budget spent' },
  { from: 'pending', event: 'observed-available', to: 'available', why: 'retried volume already exists' },
  { from: 'pending', event: 'observed-in-use', to: 'in-use', why: 'retried volume already exists, attached' },
  { from: 'creating', event: 'observed-available', to: 'available', why: 'EC2 finished creating' },
  { from: 'creating', event: 'failed', to: 'error', why: 'creation failed or budget spent' },
  { from: 'creating', event: 'removed-uncreated', to: 'deleted', why: 'dying with no CreateVolume outstanding (EC2 refused it, or none was recorded as sent)' },
  { from: 'available', event: 'observed-in-use', to: 'in-use', why: 'an attachment took' },
  { from: 'available', event: 'modify-started', to: 'modifying', why: 'spec grew' },
  { from: 'available', event: 'delete-started', to: 'deleting', why: 'dying, no attachment left' },
  { from: 'available', event: 'observed-deleted', to: 'error', why: 'volume vanished behind our back' },
  { from: 'available', event: 'failed', to: 'error', why: 'budget spent, or an error retrying cannot fix (EC2 reports the volume in error, tags beyond its limit)' },
  { from: 'in-use', event: 'observed-available', to: 'available', why: 'last attachment detached' },
  { from: 'in-use', event: 'modify-started', to: 'modifying', why: 'spec grew while attached' },
  { from: 'in-use', event: 'observed-deleted', to: 'error', why: 'volume vanished behind our back' },
  { from: 'in-use', event: 'failed', to: 'error', why: 'budget spent, or an error retrying cannot fix (EC2 reports the volume in error, tags beyond its limit)' },
  { from: 'modifying', event: 'observed-available', to: 'available', why: 'modification done (or failed), detached' },
  { from: 'modifying', event: 'observed-in-use', to: 'in-use', why: 'modification done (or failed), attached' },
  { from: 'modifying', event: 'observed-deleted', to: 'error', why: 'volume vanished behind our back' },
  { from: 'modifying', event: 'failed', to: 'error', why: 'budget spent, or EC2 reports the volume in error' },
  { from: 'deleting', event: 'observed-deleted', to: 'deleted', why: 'EC2 finished deleting' },
  { from: 'deleting', event: 'deleted-while-wanted', to: 'error', why: 'EC2 finished deleting, but the client set the record back to alive meanwhile: a retry creates a new, empty volume' },
  { from: 'deleting', event: 'failed', to: 'error', why: 'deletion failed or budget spent' },
  { from: 'deleting', event: 'observed-available', to: 'available', why: 'the delete did not take: EC2 still lists the volume available once a describe no longer lags the call (describeGraceMs, 2 minutes) (dying: deleted again after a backoff; set back to alive: kept)' },
  { from: 'deleting', event: 'observed-in-use', to: 'in-use', why: 'the delete did not take: EC2 still lists the volume attached once a describe no longer lags the call (describeGraceMs, 2 minutes) (dying: waits for it to be detached; set back to alive: kept)' },
  { from: 'error', event: 'create-started', to: 'creating', why: 'dying after an error, CreateVolume unanswered: repeated to learn the id' },
  { from: 'error', event: 'delete-started', to: 'deleting', why: 'dying after an error, volume exists' },
  { from: 'error', event: 'removed-uncreated', to: 'deleted', why: 'dying after an error, no volume exists' },
  { from: 'error', event: 'retry-requested', to: 'pending', why: 'client bumped generation (or the spec) to try again, or put right in the table a record rejected as not valid' },
];

/** Every legal attachment transition. `detached` is final: the record is removed right after. */
export const ATTACHMENT_TRANSITIONS: readonly Transition<AttachmentState, AttachmentEvent>[] = [
  { from: 'pending', event: 'attach-started', to: 'attaching', why: 'volume and instance ready' },
  { from: 'pending', event: 'observed-attached', to: 'attached', why: 'found already attached (an attach whose answer was lost, or retried; or attached outside the system)' },
  { from: 'pending', event: 'removed-unattached', to: 'detached', why: 'dying before any AttachVolume (after a look when its volume may be attached there outside the system)' },
  { from: 'pending', event: 'detach-started', to: 'detaching', why: 'dying with a device kept (a lost answer, a retry), may be attached' },
  { from: 'pending', event: 'failed', to: 'error', why: 'prerequisite never met or budget spent' },
  { from: 'pending', event: 'volume-record-removed', to: 'error', why: 'volume record removed from the table with a device kept: may be attached, no longer looked after' },
  { from: 'attaching', event: 'attach-failed', to: 'pending', why: 'AttachVolume failed, retry later' },
  { from: 'attaching', event: 'observed-attached', to: 'attached', why: 'EC2 finished attaching' },
  { from: 'attaching', event: 'observed-detached', to: 'pending', why: 'attach did not take, retry' },
  { from: 'attaching', event: 'failed', to: 'error', why: 'AttachVolume refused with an error retrying cannot fix, or budget spent' },
  { from: 'attaching', event: 'volume-record-removed', to: 'error', why: 'volume record removed from the table during the attach: may be attached, no longer looked after' },
  { from: 'attaching', event: 'detach-started', to: 'detaching', why: 'dying, volume record removed: detaching the volumes its tags name' },
  { from: 'attached', event: 'detach-started', to: 'detaching', why: 'dying' },
  { from: 'attached', event: 'observed-detached', to: 'pending', why: 'detached (or its volume deleted) behind our back, re-attach' },
  { from: 'attached', event: 'failed', to: 'error', why: 'budget spent' },
  { from: 'attached', event: 'volume-record-removed', to: 'error', why: 'volume record removed from the table: left attached, no longer looked after' },
  { from: 'detaching', event: 'observed-detached', to: 'detached', why: 'EC2 finished detaching' },
  { from: 'detaching', event: 'force-detach-started', to: 'detaching', why: 'dying, force asked for while a detach was under way: one forced DetachVolume' },
  { from: 'detaching', event: 'detached-while-wanted', to: 'pending', why: 'EC2 finished detaching, but the client set the record back to alive meanwhile: attach again' },
  { from: 'detaching', event: 'failed', to: 'error', why: 'detach failed or budget spent' },
  { from: 'detaching', event: 'observed-attached', to: 'attached', why: 'the detach did not take: EC2 still lists the attachment attached once a describe no longer lags the call (describeGraceMs, 2 minutes), or lists it attaching (attached again outside) (dying: detached again after a backoff; set back to alive: kept)' },
  { from: 'error', event: 'detach-started', to: 'detaching', why: 'dying after an error, may be attached' },
  { from: 'error', event: 'removed-unattached', to: 'detached', why: 'dying after an error, not attached (after a look when its volume may be attached there outside the system)' },
  { from: 'error', event: 'retry-requested', to: 'pending', why: 'client bumped generation to try again, or put right in the table a record rejected as not valid' },
  { from: 'error', event: 'observed-attached', to: 'attached', why: 'an attach given up on while EC2 might still make it (its answer lost, EC2 still attaching) took after all, seen by a check' },
];

/** Thrown when an event is not legal in the current state. */
export class IllegalTransitionError extends Error {
  override readonly name = 'IllegalTransitionError';
  constructor(
    readonly machine: 'volume' | 'attachment',
    readonly from: string,
    readonly event: string,
  ) {
    super(`illegal ${machine} transition: event '${event}' in state '${from}'`);
  }
}

function indexTable<S extends string, E extends string>(
  machine: 'volume' | 'attachment',
  table: readonly Transition<S, E>[],
): Map<string, S> {
  const index = new Map<string, S>();
  for (const row of table) {
    const key = `${row.from}|${row.event}`;
    if (index.has(key)) throw new Error(`duplicate ${machine} transition ${key}`);
    index.set(key, row.to);
  }
  return index;
}

const volumeIndex = indexTable('volume', VOLUME_TRANSITIONS);
const attachmentIndex = indexTable('attachment', ATTACHMENT_TRANSITIONS);

/** Where `event` takes a volume in `state`; throws IllegalTransitionError if nowhere. */
export function nextVolumeState(state: VolumeState, event: VolumeEvent): VolumeState {
  const to = volumeIndex.get(`${state}|${event}`);
  if (to === undefined) throw new IllegalTransitionError('volume', state, event);
  return to;
}

/** Where `event` takes an attachment in `state`; throws IllegalTransitionError if nowhere. */
export function nextAttachmentState(state: AttachmentState, event: AttachmentEvent): AttachmentState {
  const to = attachmentIndex.get(`${state}|${event}`);
  if (to === undefined) throw new IllegalTransitionError('attachment', state, event);
  return to;
}

/** Whether `event` is legal for a volume in `state` (for callers that must not throw). */
export function canVolume(state: VolumeState, event: VolumeEvent): boolean {
  return volumeIndex.has(`${state}|${event}`);
}

/** Whether `event` is legal for an attachment in `state`. */
export function canAttachment(state: AttachmentState, event: AttachmentEvent): boolean {
  return attachmentIndex.has(`${state}|${event}`);
}

/** A mermaid state diagram of one table: initial state, every row as a labelled edge, final state. */
export function toMermaid(machine: 'volume' | 'attachment'): string {
  const rows: readonly Transition<string, string>[] = machine === 'volume' ? VOLUME_TRANSITIONS : ATTACHMENT_TRANSITIONS;
  const states: readonly string[] = machine === 'volume' ? VOLUME_STATES : ATTACHMENT_STATES;
  const finalState = machine === 'volume' ? 'deleted' : 'detached';
  const id = (state: string) => state.replace(/-/g, '_');
  const lines = ['stateDiagram-v2'];
  for (const state of states) if (state !== id(state)) lines.push(`  state "${state}" as ${id(state)}`);
  lines.push('  [*] --> pending');
  for (const row of rows) lines.push(`  ${id(row.from)} --> ${id(row.to)}: ${row.event}`);
  lines.push(`  ${id(finalState)} --> [*]`);
  return lines.join('\n');
}

function tableMarkdown(rows: readonly Transition<string, string>[]): string {
  const lines = ['| from | event | to | why |', '|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${row.from} | ${row.event} | ${row.to} | ${row.why} |`);
  return lines.join('\n');
}

/** The whole of docs/state-machines.md, generated so the docs cannot drift from the tables. */
export function stateMachinesMarkdown(): string {
  return [
    '# State machines',
    '',
    '<!-- Generated from lib/domain/state-machines.ts by `npm run docs`; do not edit by hand. -->',
    '',
    'Every status the system writes follows one of these two tables; `nextVolumeState` and',
    '`nextAttachmentState` refuse any other move. A record leaves the table when it reaches its',
    'final state (`deleted`, `detached`): the record is removed. A record found not valid (written',
    'into the table by hand) goes to `error`, code `InvalidRecord`, by the `failed` move of its',
    'state. The one move outside the tables: a record written into the table in a final state, which',
    'the system never writes, is not valid, and its rejection puts it in `error` (code',
    '`InvalidRecord`) from there; the record, its status alone at fault, is then taken up as a retry',
    '(`retry-requested`). `error` is terminal until the client retries or marks the record dying,',
    'with one exception: an attachment given up on while EC2 might still make its attach (its answer',
    'lost, EC2 still attaching) is looked at once more, and becomes `attached` if the attach took',
    'after all (`observed-attached`).',
    '',
    '## Volume',
    '',
    '```mermaid',
    toMermaid('volume'),
    '```',
    '',
    tableMarkdown(VOLUME_TRANSITIONS),
    '',
    '## Attachment',
    '',
    '```mermaid',
    toMermaid('attachment'),
    '```',
    '',
    tableMarkdown(ATTACHMENT_TRANSITIONS),
    '',
  ].join('\n');
}
