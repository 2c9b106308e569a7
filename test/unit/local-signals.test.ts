import { describe, expect, it } from 'vitest';
import { RecordingLog } from '../../lib/memory/log.js';
import { handleStopSignals, REPEAT_WINDOW_MS, signalExitStatus, type StopSignal } from '../../lib/local/signals.js';

function setUp() {
  const listeners = new Map<StopSignal, () => void>();
  const log = new RecordingLog();
  const stops: StopSignal[] = [];
  const exits: number[] = [];
  let nowMs = 0;
  const requested = handleStopSignals({
    log,
    stop: (signal) => stops.push(signal),
    exit: (status) => exits.push(status),
    on: (signal, listener) => listeners.set(signal, listener),
    now: () => nowMs,
  });
  const send = (signal: StopSignal) => listeners.get(signal)!();
  const wait = (ms: number) => {
    nowMs += ms;
  };
  return { listeners, log, stops, exits, requested, send, wait };
}

describe('stop signals of the local runtime', () => {
  it('listens for SIGINT, SIGTERM and SIGHUP; the first starts the orderly stop and says a second one forces', () => {
    const { listeners, log, stops, exits, requested, send } = setUp();
    expect([...listeners.keys()].sort()).toEqual(['SIGHUP', 'SIGINT', 'SIGTERM']);
    expect(requested()).toBe(false);
    send('SIGTERM');
    expect(requested()).toBe(true);
    expect(stops).toEqual(['SIGTERM']);
    expect(exits).toEqual([]);
    expect(log.entries).toEqual([{ level: 'info', message: 'SIGTERM: stopping… (again to force)' }]);
  });

  it('exits at once on a second signal, with the status a shell reports for it, without stopping again', () => {
    const { log, stops, exits, send, wait } = setUp();
    send('SIGINT');
    wait(REPEAT_WINDOW_MS);
    send('SIGINT');
    send('SIGHUP');
    expect(stops).toEqual(['SIGINT']);
    expect(exits).toEqual([130, signalExitStatus('SIGHUP')]);
    expect(log.entries.at(1)).toEqual({ level: 'warn', message: 'SIGINT again: exiting at once' });
  });

  it("takes the same signal again within moments of the first as that one delivered twice (a terminal's Ctrl-C reaching npm, which passes it on, and the runtime): the stop goes on", () => {
    const { log, stops, exits, requested, send, wait } = setUp();
    send('SIGINT');
    wait(50);
    send('SIGINT');
    expect(requested()).toBe(true);
    expect(stops).toEqual(['SIGINT']);
    expect(exits).toEqual([]);
    expect(log.entries.filter((entry) => entry.level !== 'debug')).toEqual([{ level: 'info', message: 'SIGINT: stopping… (again to force)' }]);
    // Another signal, or the same one once the moment has passed, is a second request: it forces.
    send('SIGTERM');
    expect(exits).toEqual([signalExitStatus('SIGTERM')]);
    wait(REPEAT_WINDOW_MS);
    send('SIGINT');
    expect(exits).toEqual([signalExitStatus('SIGTERM'), 130]);
  });

  it('maps signals to 128 + their number', () => {
    expect([signalExitStatus('SIGINT'), signalExitStatus('SIGTERM'), signalExitStatus('SIGHUP')]).toEqual([130, 143, 129]);
  });
});
