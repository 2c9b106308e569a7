/**
 * How the local runtime answers Ctrl-C, SIGTERM and SIGHUP: the first asks for an orderly stop (the
 * API server, the pollers, then moto_server if the runtime started it); a second one, while that
 * stop is still under way, exits at once. A moto_server the runtime started is killed on the way
 * out all the same (its launcher kills it when this process exits).
 *
 * One request may arrive twice: a terminal's Ctrl-C goes to its whole foreground process group,
 * npm and the runtime alike, and npm passes the SIGINT it got on to the runtime (`timeout` and
 * process managers that signal the group and then npm do the same with SIGTERM). So the same
 * signal again within REPEAT_WINDOW_MS of the first is taken as that one, not as a second request.
 */
import { constants } from 'node:os';
import type { Log } from '../engine/ports.js';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

export interface StopSignalOptions {
  log: Log;
  /** Starts the orderly stop; called once, on the first signal. */
  stop: (signal: StopSignal) => void;
  /** Exits the process at once with this status; called on every further signal. */
  exit: (status: number) => void;
  /** Where the signals are listened for (the process, or a stand-in in tests). */
  on?: (signal: StopSignal, listener: () => void) => void;
  /** The time in milliseconds (Date.now, or a stand-in in tests). */
  now?: () => number;
}

/**
 * How soon after the first signal the same one is the first delivered again (by npm passing on the
 * terminal's Ctrl-C, within milliseconds) rather than a person asking to force the exit.
 */
export const REPEAT_WINDOW_MS = 1_000;

/** The status a shell reports for a process killed by `signal`: 128 + its number (130 for SIGINT). */
export function signalExitStatus(signal: StopSignal): number {
  return 128 + constants.signals[signal];
}

/** Listens for the stop signals; returns whether a stop has been asked for yet. */
export function handleStopSignals(options: StopSignalOptions): () => boolean {
  const on = options.on ?? ((signal, listener) => void process.on(signal, listener));
  const now = options.now ?? Date.now;
  let requested: { signal: StopSignal; at: number } | undefined;
  for (const signal of STOP_SIGNALS) {
    on(signal, () => {
      if (requested) {
        if (signal === requested.signal && now() - requested.at < REPEAT_WINDOW_MS) {
          options.log.debug(`${signal} again within ${REPEAT_WINDOW_MS} ms: the first one delivered twice, still stopping`);
          return;
        }
        options.log.warn(`${signal} again: exiting at once`);
        options.exit(signalExitStatus(signal));
        return;
      }
      requested = { signal, at: now() };
      options.log.info(`${signal}: stopping… (again to force)`);
      options.stop(signal);
    });
  }
  return () => requested !== undefined;
}
