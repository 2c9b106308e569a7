/**
 * The same stop signal again within a second of the first is that one delivered twice; a second or
 * more after it, it forces the exit (docs/local.md, "Ctrl-C"; README.md, `npm start`). The second is
 * counted from the first signal, whatever the clock read when the runtime started.
 */
import { describe, expect, it } from 'vitest';
import { RecordingLog } from '../../lib/memory/log.js';
import { handleStopSignals, type StopSignal } from '../../lib/local/signals.js';

function startedAt(startMs: number) {
  const listeners = new Map<StopSignal, () => void>();
  const stops: StopSignal[] = [];
  const exits: number[] = [];
  let nowMs = startMs;
  handleStopSignals({
    log: new RecordingLog(),
    stop: (signal) => stops.push(signal),
    exit: (status) => exits.push(status),
    on: (signal, listener) => listeners.set(signal, listener),
    now: () => nowMs,
  });
  const sendAt = (ms: number, signal: StopSignal) => {
    nowMs = startMs + ms;
    listeners.get(signal)!();
  };
  return { stops, exits, sendAt };
}

describe('stop signals: the one-second window after the first', () => {
  it('takes the same signal 999 ms after the first as the first delivered again, on a clock that reads the epoch time as Date.now does', () => {
    const { stops, exits, sendAt } = startedAt(Date.parse('2026-01-01T00:00:00Z'));
    sendAt(10_000, 'SIGINT');
    sendAt(10_999, 'SIGINT');
    expect(stops).toEqual(['SIGINT']);
    expect(exits).toEqual([]);
  });

  it('exits at once on the same signal 1 000 ms after the first, with 130 for SIGINT', () => {
    const { stops, exits, sendAt } = startedAt(Date.parse('2026-01-01T00:00:00Z'));
    sendAt(10_000, 'SIGINT');
    sendAt(11_000, 'SIGINT');
    expect(stops).toEqual(['SIGINT']);
    expect(exits).toEqual([130]);
  });
});
