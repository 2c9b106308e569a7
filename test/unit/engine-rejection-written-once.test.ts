/**
 * A record that already carries the rejection for its reasons (its own status write coming back,
 * a redelivery) is left as it is: no second write, no second count, no second warning.
 */
import { describe, expect, it } from 'vitest';
import { writeRejection } from '../../lib/engine/rejection.js';
import { invalidRecordStatus } from '../../lib/engine/status.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { RecordingMetrics } from '../../lib/memory/metrics.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { METRICS } from '../../lib/settings.js';
import { newVolume, START, volumeKey } from './engine-fixtures.js';

const REASONS = 'spec.sizeGiB: must be an integer';

describe('writeRejection of a record already rejected for the same reasons', () => {
  it('writes nothing, counts nothing and logs nothing', async () => {
    const deps = { store: new MemoryRecordStore(), clock: new FakeClock(START + 60_000), metrics: new RecordingMetrics(), log: new RecordingLog() };
    const rejected = newVolume('data-1', { version: 2, status: invalidRecordStatus(START, REASONS) });
    deps.store.putRaw(rejected);
    await writeRejection(deps, rejected, volumeKey('data-1'), REASONS);
    expect(await deps.store.get(volumeKey('data-1'))).toMatchObject({ version: 2, status: { updatedAt: new Date(START).toISOString() } });
    expect(deps.metrics.counter(METRICS.invalidRecords)).toBe(0);
    expect(deps.log.entries).toEqual([]);
  });

  it('writes and counts the rejection once for a record not yet rejected', async () => {
    const deps = { store: new MemoryRecordStore(), clock: new FakeClock(START + 60_000), metrics: new RecordingMetrics(), log: new RecordingLog() };
    const record = newVolume('data-1', { version: 2 });
    deps.store.putRaw(record);
    await writeRejection(deps, record, volumeKey('data-1'), REASONS);
    expect(await deps.store.get(volumeKey('data-1'))).toMatchObject({ version: 3, status: invalidRecordStatus(START + 60_000, REASONS) });
    expect(deps.metrics.counter(METRICS.invalidRecords)).toBe(1);
  });
});
