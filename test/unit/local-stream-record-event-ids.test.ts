/** DynamoDB Streams gives each stream record a unique `eventID`; the local stream records do too. */
import { describe, expect, it } from 'vitest';
import { streamRecord } from '../../lib/local/event-records.js';
import { volume as storedVolume } from './memory-store-fixtures.js';

const T0 = '2026-01-01T00:00:00.000Z';
const key = { kind: 'volume' as const, volumeId: 'data-1' };
const volume = storedVolume('data-1', T0, { version: 1 });

describe('local stream records', () => {
  it('have event ids that differ from one record to the next, also for changes of the same item', () => {
    const at = Date.parse(T0);
    const records = [
      streamRecord({ eventName: 'INSERT', key, newRecord: volume, sequenceNumber: 1, at }),
      streamRecord({ eventName: 'MODIFY', key, oldRecord: volume, newRecord: { ...volume, version: 2 }, sequenceNumber: 2, at }),
      streamRecord({ eventName: 'REMOVE', key, oldRecord: { ...volume, version: 2 }, sequenceNumber: 3, at }),
    ];
    const ids = records.map((r) => r.eventID);
    for (const id of ids) expect(id).toEqual(expect.any(String));
    expect(new Set(ids).size).toBe(3);
  });
});
