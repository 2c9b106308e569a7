import { describe, expect, it } from 'vitest';
import { RecordingLog } from '../../lib/memory/log.js';
import { handleStopSignals, signalExitStatus, type StopSignal } from '../../lib/local/signals.js';

function setUp() {
  const listeners = new Map<StopSignal, () => void>();
  const log = new RecordingLog();
  const stops: StopSignal[] = [];
  const exits: number[] = [];
  const requested = handleStopSignals({
    log,
    stop: (signal) => stops.push(signal),
    exit: (status) => exits.push(status),
    on: (signal, listener) => listeners.set(signal, listener),
  });
  const send = (signal: StopSignal) => listeners.get(signal)!();
  return { log, stops, exits, requested, send };
}

describe('stop signals of the local runtime', () => {
  it('listens for SIGINT, SIGTERM and SIGHUP; the first starts the orderly stop and says a second one forces', () => {
    const { log, stops, exits, requested, send } = setUp();
    expect(requested()).toBe(false);
    send('SIGTERM');
    expect(requested()).toBe(true);
    expect(stops).toEqual(['SIGTERM']);
    expect(exits).toEqual([]);
    expect(log.entries).toEqual([{ level: 'info', message: 'SIGTERM: stopping… (again to force)' }]);
  });

  it('exits at once on a second signal, with the status a shell reports for it, without stopping again', () => {
    const { log, stops, exits, send } = setUp();
    send('SIGINT');
    send('SIGINT');
    send('SIGHUP');
    expect(stops).toEqual(['SIGINT']);
    expect(exits).toEqual([130, signalExitStatus('SIGHUP')]);
    expect(log.entries.at(1)).toEqual({ level: 'warn', message: 'SIGINT again: exiting at once' });
  });

  it('maps signals to 128 + their number', () => {
    expect([signalExitStatus('SIGINT'), signalExitStatus('SIGTERM'), signalExitStatus('SIGHUP')]).toEqual([130, 143, 129]);
  });
});
