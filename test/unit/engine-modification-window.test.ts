import { describe, expect, it } from 'vitest';
import { EC2_TIME_SLACK_MS } from '../../lib/engine/status.js';
import {
  FORGET_MODIFICATION_STARTS,
  futureStartsAsNow,
  latestModificationFailed,
  learntModificationStart,
  modificationStarted,
  modificationStartInFuture,
  modificationsStartedBy,
  recordedModificationStarts,
  withStarts,
} from '../../lib/engine/modification-window.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(ms).toISOString();

/** A record's fields for modifications started at these times (epoch ms, oldest first). */
function starts(...times: number[]) {
  const iso = times.map(at);
  return { lastModificationStartedAt: iso.at(-1)!, ...(iso.length > 1 ? { earlierModificationStarts: iso.slice(0, -1) } : {}) };
}

describe('the modification starts a volume record keeps', () => {
  it('a new start moves the latest into the earlier ones, oldest first, keeping those within 24 hours (and the slack) of it, 3 at most', () => {
    expect(modificationStarted({}, NOW, NOW)).toEqual({ lastModificationStartedAt: at(NOW), earlierModificationStarts: null });
    expect(modificationStarted(starts(NOW - 2 * HOUR), NOW, NOW)).toEqual(starts(NOW - 2 * HOUR, NOW));
    // Four known: the oldest goes, as EC2 counts no more than 4.
    expect(modificationStarted(starts(NOW - 4 * HOUR, NOW - 3 * HOUR, NOW - 2 * HOUR, NOW - HOUR), NOW, NOW)).toEqual(starts(NOW - 3 * HOUR, NOW - 2 * HOUR, NOW - HOUR, NOW));
    // Older than a day (and the slack) before the new one: EC2 no longer counts it.
    expect(modificationStarted(starts(NOW - 24 * HOUR - 5_000, NOW - HOUR), NOW, NOW)).toEqual(starts(NOW - HOUR, NOW));
    expect(modificationStarted(starts(NOW - 24 * HOUR, NOW - HOUR), NOW, NOW)).toEqual(starts(NOW - 24 * HOUR, NOW - HOUR, NOW));
    expect(modificationStarted(starts(NOW - 30 * HOUR), NOW, NOW)).toEqual({ lastModificationStartedAt: at(NOW), earlierModificationStarts: null });
  });

  it('a start learnt from EC2 within our slack of the latest is that one (the later time kept); a later one is another', () => {
    expect(modificationStarted(starts(NOW - HOUR, NOW), NOW + 2_000, NOW + 10_000, true)).toEqual(starts(NOW - HOUR, NOW + 2_000));
    expect(modificationStarted(starts(NOW - HOUR, NOW), NOW - 1_000, NOW + 10_000, true)).toEqual(starts(NOW - HOUR, NOW));
    expect(modificationStarted(starts(NOW - HOUR, NOW), NOW + 60_000, NOW + 60_000, true)).toEqual(starts(NOW - HOUR, NOW, NOW + 60_000));
    // The slack to the millisecond.
    expect(modificationStarted(starts(NOW - HOUR, NOW), NOW + EC2_TIME_SLACK_MS, NOW + 10_000, true)).toEqual(starts(NOW - HOUR, NOW + EC2_TIME_SLACK_MS));
    expect(modificationStarted(starts(NOW - HOUR, NOW), NOW + EC2_TIME_SLACK_MS + 1, NOW + 10_000, true)).toEqual(starts(NOW - HOUR, NOW, NOW + EC2_TIME_SLACK_MS + 1));
    // Earlier than the latest beyond the slack: another, put in its place among the starts.
    expect(modificationStarted(starts(NOW - HOUR, NOW), NOW - 30 * 60_000, NOW + 10_000, true)).toEqual(starts(NOW - HOUR, NOW - 30 * 60_000, NOW));
    expect(modificationStarted(starts(NOW - HOUR, NOW), NOW - 30 * 60_000, NOW + 10_000)).toEqual(starts(NOW - HOUR, NOW - 30 * 60_000, NOW));
    // The system's own ModifyVolume is always another.
    expect(modificationStarted(starts(NOW), NOW + 2_000, NOW + 2_000)).toEqual(starts(NOW, NOW + 2_000));
  });

  it('learns the latest modification EC2 lists only when it counts and the record does not know it', () => {
    const known = starts(NOW - 2 * HOUR, NOW - HOUR);
    expect(learntModificationStart(known, { state: 'completed', startedAt: NOW - 30 * 60_000 }, NOW)).toEqual(starts(NOW - 2 * HOUR, NOW - HOUR, NOW - 30 * 60_000));
    expect(learntModificationStart(known, { state: 'failed', startedAt: NOW - 30 * 60_000 }, NOW)).toBeUndefined();
    expect(learntModificationStart(known, { state: 'completed', startedAt: NOW - HOUR }, NOW)).toBeUndefined();
    expect(learntModificationStart(known, { state: 'completed' }, NOW)).toBeUndefined();
    expect(learntModificationStart(known, undefined, NOW)).toBeUndefined();
    expect(learntModificationStart({}, { state: 'optimizing', startedAt: NOW - HOUR }, NOW)).toEqual({ lastModificationStartedAt: at(NOW - HOUR), earlierModificationStarts: null });
  });

  it("a start EC2 lists within our slack after the record's latest is that one, dated by EC2's clock; one after now is now", () => {
    expect(learntModificationStart(starts(NOW - 2 * HOUR, NOW - HOUR), { state: 'modifying', startedAt: NOW - HOUR + 2_000 }, NOW)).toEqual(starts(NOW - 2 * HOUR, NOW - HOUR + 2_000));
    // EC2's clock a little ahead of ours: the modification certainly started by now.
    expect(learntModificationStart({}, { state: 'modifying', startedAt: NOW + 3_000 }, NOW)).toEqual({ lastModificationStartedAt: at(NOW), earlierModificationStarts: null });
  });

  it('the starts as changes leave them: unchanged without changes, none once forgotten', () => {
    const volume = starts(NOW - 2 * HOUR, NOW - HOUR);
    expect(withStarts(volume, undefined)).toBe(volume);
    expect(withStarts(volume, FORGET_MODIFICATION_STARTS)).toEqual({});
    expect(withStarts({}, modificationsStartedBy(NOW))).toEqual({ lastModificationStartedAt: at(NOW), earlierModificationStarts: [at(NOW), at(NOW), at(NOW)] });
    expect(withStarts(volume, modificationStarted(volume, NOW, NOW))).toEqual(starts(NOW - 2 * HOUR, NOW - HOUR, NOW));
  });

  it("a refusal for EC2's limit: 4 started by then", () => {
    expect(modificationsStartedBy(NOW)).toEqual({ lastModificationStartedAt: at(NOW), earlierModificationStarts: [at(NOW), at(NOW), at(NOW)] });
  });

  it('a failed modification drops the latest start only; the last one forgets them all', () => {
    expect(latestModificationFailed(starts(NOW - 2 * HOUR, NOW - HOUR, NOW), NOW)).toEqual(starts(NOW - 2 * HOUR, NOW - HOUR));
    expect(latestModificationFailed(starts(NOW - HOUR, NOW), NOW)).toEqual({ lastModificationStartedAt: at(NOW - HOUR), earlierModificationStarts: null });
    expect(latestModificationFailed(starts(NOW), NOW)).toEqual({ lastModificationStartedAt: null, earlierModificationStarts: null });
  });

  it('reads a start later than now beyond the slack as now, leaves out an unreadable one, and writes them back as now', () => {
    const ahead = { lastModificationStartedAt: at(NOW + 10 * 24 * HOUR), earlierModificationStarts: ['soon', at(NOW - HOUR), at(NOW + 5_000)] };
    expect(recordedModificationStarts(ahead, NOW)).toEqual([NOW - HOUR, NOW, NOW + 5_000]);
    expect(futureStartsAsNow(ahead, NOW)).toEqual(starts(NOW - HOUR, NOW, NOW + 5_000));
    // Later than now beyond the slack, to the millisecond.
    expect(modificationStartInFuture(ahead, NOW)).toBe(true);
    expect(modificationStartInFuture(starts(NOW - HOUR, NOW + EC2_TIME_SLACK_MS), NOW)).toBe(false);
    expect(modificationStartInFuture(starts(NOW + EC2_TIME_SLACK_MS + 1), NOW)).toBe(true);
  });
});
