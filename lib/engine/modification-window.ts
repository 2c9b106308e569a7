/**
 * EC2's limit on a volume's modifications (`MODIFICATIONS_PER_WINDOW` in any
 * `MODIFICATION_WINDOW_MS`), kept on the volume record: the starts of the modifications EC2 still
 * counts (`lastModificationStartedAt`, the latest, and `earlierModificationStarts`), each a time the
 * modification certainly started by. The planner tells from them alone when the next one may be
 * made; every write that learns a start goes through here.
 */
import { MODIFICATION_WINDOW_MS, MODIFICATIONS_PER_WINDOW } from '../domain/ebs-limits.js';
import type { VolumeRecord } from '../domain/records.js';
import type { RecordChanges } from './ports.js';
import { EC2_TIME_SLACK_MS } from './status.js';

type ModificationStarts = Pick<VolumeRecord, 'lastModificationStartedAt' | 'earlierModificationStarts'>;
type StartChanges = Pick<RecordChanges<VolumeRecord>, 'lastModificationStartedAt' | 'earlierModificationStarts'>;

/** What forgets every start: the EC2 volume is gone. */
export const FORGET_MODIFICATION_STARTS: StartChanges = { lastModificationStartedAt: null, earlierModificationStarts: null };

/** When EC2 allows a modification once the one started at `startedAtMs` no longer counts (epoch ms), with our slack for EC2's clock. */
export function windowEndAfter(startedAtMs: number): number {
  return startedAtMs + MODIFICATION_WINDOW_MS + EC2_TIME_SLACK_MS;
}

function parsed(text: string | undefined): number[] {
  const ms = text === undefined ? Number.NaN : Date.parse(text);
  return Number.isNaN(ms) ? [] : [ms];
}

/** Every start the record holds (epoch ms), oldest first, as written; unreadable ones left out. */
function writtenStarts(volume: ModificationStarts): number[] {
  return [...(volume.earlierModificationStarts ?? []).flatMap(parsed), ...parsed(volume.lastModificationStartedAt)].sort((a, b) => a - b);
}

/** Whether the record holds a start later than `nowMs` beyond our slack: bad input written straight into the table. */
export function modificationStartInFuture(volume: ModificationStarts, nowMs: number): boolean {
  return writtenStarts(volume).some((startedAtMs) => startedAtMs > nowMs + EC2_TIME_SLACK_MS);
}

/** The starts the record knows (epoch ms), oldest first: one in the future (`modificationStartInFuture`) counts as now. */
export function recordedModificationStarts(volume: ModificationStarts, nowMs: number): number[] {
  return writtenStarts(volume)
    .map((startedAtMs) => (startedAtMs > nowMs + EC2_TIME_SLACK_MS ? nowMs : startedAtMs))
    .sort((a, b) => a - b);
}

/**
 * The fields that hold `starts` (epoch ms, oldest first): the latest, and before it those EC2 still
 * counts once it started (a window from each reaching past it), at most the count less one.
 */
function startFields(starts: readonly number[]): StartChanges {
  const latest = starts.at(-1);
  if (latest === undefined) return FORGET_MODIFICATION_STARTS;
  const earlier = starts
    .slice(0, -1)
    .filter((startedAtMs) => windowEndAfter(startedAtMs) > latest)
    .slice(-(MODIFICATIONS_PER_WINDOW - 1));
  return {
    lastModificationStartedAt: new Date(latest).toISOString(),
    earlierModificationStarts: earlier.length > 0 ? earlier.map((startedAtMs) => new Date(startedAtMs).toISOString()) : null,
  };
}

/**
 * A modification EC2 started at (or certainly by) `startedAtMs`, beside those the record knows.
 * `maybeKnown`: a start learnt from EC2's list, which may be the record's latest one dated by EC2's
 * clock (to the second, a little off ours): within our slack of it, it is that one, the later time kept.
 */
export function modificationStarted(volume: ModificationStarts, startedAtMs: number, nowMs: number, maybeKnown = false): StartChanges {
  const starts = recordedModificationStarts(volume, nowMs);
  const latest = starts.at(-1);
  if (maybeKnown && latest !== undefined && Math.abs(startedAtMs - latest) <= EC2_TIME_SLACK_MS) starts[starts.length - 1] = Math.max(latest, startedAtMs);
  else starts.push(startedAtMs);
  return startFields(starts.sort((a, b) => a - b));
}

/**
 * The latest modification EC2 lists, when the record does not know it yet (ours whose answer was
 * lost, or one made in the console) and it counts (not failed): the record with its start; else undefined.
 */
export function learntModificationStart(
  volume: ModificationStarts,
  latest: { state: string; startedAt?: number } | undefined,
  nowMs: number,
): StartChanges | undefined {
  if (latest === undefined || latest.state === 'failed' || latest.startedAt === undefined) return undefined;
  const known = recordedModificationStarts(volume, nowMs).at(-1);
  return known === undefined || latest.startedAt > known ? modificationStarted(volume, Math.min(latest.startedAt, nowMs), nowMs, true) : undefined;
}

/** The record's starts as `changes` leave them. */
export function withStarts(volume: ModificationStarts, changes: StartChanges | undefined): ModificationStarts {
  if (changes === undefined) return volume;
  return {
    ...(changes.lastModificationStartedAt ? { lastModificationStartedAt: changes.lastModificationStartedAt } : {}),
    ...(changes.earlierModificationStarts ? { earlierModificationStarts: changes.earlierModificationStarts } : {}),
  };
}

/**
 * EC2 refused a modification for its rate limit, counting modifications the record may not know
 * (made in the console, say): taken as all of them started by `startedByMs`, so the next one waits
 * a window from it. EC2's message names when, in words it does not document, so it is not read.
 */
export function modificationsStartedBy(startedByMs: number): StartChanges {
  return startFields(Array.from({ length: MODIFICATIONS_PER_WINDOW }, () => startedByMs));
}

/** The record's latest modification failed: its start no longer counts, the one before it is the latest. */
export function latestModificationFailed(volume: ModificationStarts, nowMs: number): StartChanges {
  return startFields(recordedModificationStarts(volume, nowMs).slice(0, -1));
}

/** The starts with one in the future replaced by now (`modificationStartInFuture`), so the end the planner counted no longer moves. */
export function futureStartsAsNow(volume: ModificationStarts, nowMs: number): StartChanges {
  return startFields(recordedModificationStarts(volume, nowMs));
}
