import type { Clock } from '../engine/ports.js';

interface Sleeper {
  dueAt: number;
  order: number;
  resolve: () => void;
}

/** Lets pending promise continuations run, so work awaiting a woken sleeper can schedule its next sleep. */
async function flushMicrotasks(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
  await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The error for a duration that is no number of milliseconds: `what` names the call. */
function notADuration(what: string, ms: number): RangeError {
  return new RangeError(`${what} takes ${what === 'sleep' ? 'a number' : 'a finite number'} of milliseconds, got ${ms}`);
}

/**
 * A clock that only moves when told to. `advance` walks time forward sleeper by sleeper, letting
 * each woken task run before moving on, so chained sleeps inside the advanced span all fire.
 *
 * @example
 * const clock = new FakeClock();
 * const done = clock.sleep(1_000).then(() => clock.now());
 * await clock.advance(1_000); // done resolves with start + 1000
 */
export class FakeClock implements Clock {
  private current: number;
  private sleepers: Sleeper[] = [];
  private nextOrder = 0;

  /** Starts at `startMs`; by default 2026-01-01T00:00:00Z, a fixed time so runs repeat exactly. */
  constructor(startMs = Date.parse('2026-01-01T00:00:00Z')) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  sleep(ms: number): Promise<void> {
    // Checked first: a NaN would compare false below and, woken, make the clock's time NaN.
    if (Number.isNaN(ms)) return Promise.reject(notADuration('sleep', ms));
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      this.sleepers.push({ dueAt: this.current + ms, order: this.nextOrder++, resolve });
    });
  }

  /** Moves time forward by `ms` (a finite number; none at or below 0), waking sleepers in due order. */
  async advance(ms: number): Promise<void> {
    // NaN or an infinity would wake every sleeper (a chain of sleeps without end) and leave the time NaN or infinite.
    if (!Number.isFinite(ms)) throw notADuration('advance', ms);
    const target = this.current + ms;
    await flushMicrotasks();
    for (;;) {
      const next = this.earliestDue();
      if (!next || next.dueAt > target) break;
      this.current = Math.max(this.current, next.dueAt);
      this.sleepers = this.sleepers.filter((s) => s !== next);
      next.resolve();
      await flushMicrotasks();
    }
    this.current = Math.max(this.current, target);
  }

  /** Moves the clock to an absolute time (never backwards); a finite number. */
  async advanceTo(epochMs: number): Promise<void> {
    if (!Number.isFinite(epochMs)) throw new RangeError(`advanceTo takes a finite epoch time in milliseconds, got ${epochMs}`);
    await this.advance(Math.max(0, epochMs - this.current));
  }

  pendingSleepers(): number {
    return this.sleepers.length;
  }

  private earliestDue(): Sleeper | undefined {
    let best: Sleeper | undefined;
    for (const s of this.sleepers) {
      if (!best || s.dueAt < best.dueAt || (s.dueAt === best.dueAt && s.order < best.order)) best = s;
    }
    return best;
  }
}

/** Node's longest timer delay: a longer one (or a NaN) fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Wall-clock time, for the deployed functions and the local runtime. */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  /** As the fake clock's: a NaN is refused, a longer sleep than one timer takes is one timer after another. */
  sleep(ms: number): Promise<void> {
    if (Number.isNaN(ms)) return Promise.reject(notADuration('sleep', ms));
    const endsAt = Date.now() + Math.max(0, ms);
    return new Promise((resolve) => {
      const wait = (rest: number): void => {
        if (rest <= MAX_TIMER_MS) setTimeout(resolve, rest);
        else setTimeout(() => wait(endsAt - Date.now()), MAX_TIMER_MS);
      };
      wait(Math.max(0, ms));
    });
  }
}
