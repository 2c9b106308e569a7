import { describe, expect, it } from 'vitest';
import { RecordingLog } from '../../lib/memory/log.js';
import { RecordingMetrics, type RecordedOperation } from '../../lib/memory/metrics.js';

describe('RecordingMetrics and RecordingLog: what they keep', () => {
  it('lists every outcome in order when asked for no operation, and one operation\'s alone when named', () => {
    const metrics = new RecordingMetrics();
    metrics.operation({ operation: 'create-volume', outcome: 'succeeded', latencyMs: 10 });
    metrics.operation({ operation: 'attach', outcome: 'throttled' });
    metrics.operation({ operation: 'create-volume', outcome: 'failed' });
    expect(metrics.outcomes()).toEqual(['succeeded', 'throttled', 'failed']);
    expect(metrics.outcomes('create-volume')).toEqual(['succeeded', 'failed']);
  });

  it('keeps each data point as it was given: changing the event afterwards changes nothing recorded', () => {
    const metrics = new RecordingMetrics();
    const event: RecordedOperation = { operation: 'create-volume', outcome: 'succeeded', latencyMs: 10 };
    metrics.operation(event);
    event.outcome = 'failed';
    event.latencyMs = 99;
    expect(metrics.operations).toEqual([{ operation: 'create-volume', outcome: 'succeeded', latencyMs: 10 }]);
  });

  it('adds each count to the counter\'s total, 1 when no value is given', () => {
    const metrics = new RecordingMetrics();
    metrics.count('Throttles');
    metrics.count('Throttles', 3);
    expect(metrics.counter('Throttles')).toBe(4);
    expect(metrics.counter('Never')).toBe(0);
  });

  it('keeps each line at the level it was logged, with its attributes only when it has some', () => {
    const log = new RecordingLog();
    log.debug('d');
    log.info('i', { a: 1 });
    log.warn('w');
    log.error('e', { b: 2 });
    expect(log.entries).toEqual([
      { level: 'debug', message: 'd' },
      { level: 'info', message: 'i', attributes: { a: 1 } },
      { level: 'warn', message: 'w' },
      { level: 'error', message: 'e', attributes: { b: 2 } },
    ]);
    expect(Object.keys(log.entries[0]!)).toEqual(['level', 'message']);
  });
});
