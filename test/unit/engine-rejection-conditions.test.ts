import { describe, expect, it } from 'vitest';
import type { ProvisionerRecord } from '../../lib/domain/records.js';
import { writeRejection } from '../../lib/engine/rejection.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { RecordingMetrics } from '../../lib/memory/metrics.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { METRICS } from '../../lib/settings.js';
import { newVolume, START, volumeKey } from './engine-fixtures.js';

const REASONS = 'version: expected number, received string';

describe('writeRejection: the condition on the record judged', () => {
  it.each([
    ['no number', 'seven'],
    ['a number too large to be read exactly', 2 ** 60],
  ])('writes the rejection over a version that is %s, whatever the record holds, and counts it', async (_what, version) => {
    const d = { store: new MemoryRecordStore(), clock: new FakeClock(START), metrics: new RecordingMetrics(), log: new RecordingLog() };
    const raw = { ...newVolume('data-1'), version };
    d.store.putRaw(raw);
    // A condition on the version could not be sent to DynamoDB (or would be of another type than the item's): the write carries none.
    const conditions: unknown[] = [];
    const update = d.store.update.bind(d.store);
    d.store.update = (key, changes, condition) => {
      conditions.push(condition);
      return update(key, changes, condition);
    };
    await writeRejection(d, raw as unknown as ProvisionerRecord, volumeKey('data-1'), REASONS);
    expect(await d.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'InvalidRecord', message: REASONS } });
    expect(conditions).toEqual([undefined]);
    expect(d.metrics.counter(METRICS.invalidRecords)).toBe(1);
  });

  it('matches a record whose createdAt is no string on its version alone', async () => {
    const d = { store: new MemoryRecordStore(), clock: new FakeClock(START), metrics: new RecordingMetrics(), log: new RecordingLog() };
    const raw = { ...newVolume('data-1', { version: 3 }), createdAt: 20260101 };
    d.store.putRaw(raw);
    const conditions: unknown[] = [];
    const update = d.store.update.bind(d.store);
    d.store.update = (key, changes, condition) => {
      conditions.push(condition);
      return update(key, changes, condition);
    };
    await writeRejection(d, raw as unknown as ProvisionerRecord, volumeKey('data-1'), 'createdAt: expected string, received number');
    expect(conditions).toEqual([{ version: 3 }]);
    expect(await d.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'InvalidRecord' }, version: 4 });
  });
});
