/**
 * The loop of a poller: reads while running, waiting `idleMs` after a read that found nothing, and
 * longer after each read that failed in a row (the emulator stopped, its endpoint refusing
 * connections), as Lambda's pollers back off: a wait that doubles from `idleMs` up to
 * MAX_FAILURE_WAIT_MS, so the log gets one line per read that failed rather than dozens a second,
 * and a source back again is read within that time. A stop still ends the loop within `idleMs`.
 */
import type { Clock, Log } from '../engine/ports.js';

/** The longest wait after reads that failed in a row. */
export const MAX_FAILURE_WAIT_MS = 10_000;

export interface PollLoopOptions {
  /** Whether to go on; checked before each read and each wait. */
  running: () => boolean;
  /** One read and what it was handed on to; returns the items handled (0: nothing there). */
  pollOnce: () => Promise<number>;
  clock: Clock;
  log: Log;
  /** The wait after a read that found nothing. */
  idleMs: number;
  /** What failed, for the log line: `queue poller`. */
  name: string;
}

export async function pollUntilStopped(options: PollLoopOptions): Promise<void> {
  const { clock, log, idleMs } = options;
  let failedInARow = 0;
  while (options.running()) {
    let handled: number;
    try {
      handled = await options.pollOnce();
      failedInARow = 0;
    } catch (error) {
      failedInARow++;
      const waitMs = Math.min(MAX_FAILURE_WAIT_MS, Math.max(idleMs, 1) * 2 ** (failedInARow - 1));
      log.error(`${options.name} failed`, { error: String(error), ...(failedInARow > 1 ? { failedInARow } : {}), nextReadInMs: waitMs });
      // In steps of the idle wait: a stop asked for meanwhile is not held up by the longer wait.
      const step = idleMs > 0 ? idleMs : waitMs;
      for (let waited = 0; waited < waitMs && options.running(); waited += step) await clock.sleep(Math.min(step, waitMs - waited));
      continue;
    }
    if (handled === 0 && options.running()) await clock.sleep(idleMs);
  }
}

/**
 * The runs of a poller's loops, one after another: `start` while a `stop` is still under way (the
 * handler finishing a batch) begins the new loops only once the old ones have ended, so a poller
 * stopped and started again never has more loops at once than one start makes. A `stop` before
 * those loops began cancels them; a second `start` while running, or while a start waits, changes
 * nothing.
 */
export class PollerRuns {
  private current?: { running: boolean; done: Promise<void> };
  /** Whether the loops of the last run have all ended (or never began). */
  private over = true;

  /** Starts the loops `begin` makes, each given whether to go on. */
  start(begin: (running: () => boolean) => Promise<void>[]): void {
    if (this.current?.running) return;
    const run = { running: true, done: Promise.resolve() };
    const loops = async (): Promise<void> => {
      if (!run.running) return;
      await Promise.all(begin(() => run.running));
    };
    const before = this.over ? undefined : this.current?.done;
    this.over = false;
    // The loops start at once when nothing is stopping, as before any restart.
    run.done = (before ? before.then(loops, loops) : loops()).finally(() => {
      if (this.current === run) this.over = true;
    });
    this.current = run;
  }

  /** Stops the current run; resolves once its loops have ended. */
  async stop(): Promise<void> {
    const run = this.current;
    if (!run) return;
    run.running = false;
    await run.done;
  }
}
