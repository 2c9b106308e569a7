import { describe, expect, it } from 'vitest';
import { fromStreamImage } from '../../lib/aws/record-item.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { streamRecord } from '../../lib/local/event-records.js';

const T0 = '2026-01-01T00:00:00.000Z';

describe("the memory backend's stream records", () => {
  it('carry tags under any key EC2 allows, `constructor` included, in both images', () => {
    const tags = { constructor: 'x', toString: 'y', team: 'storage' };
    const volume: VolumeRecord = {
      kind: 'volume',
      volumeId: 'data-1',
      spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags },
      life: 'alive',
      generation: 1,
      status: { state: 'pending', attempts: 0, updatedAt: T0 },
      version: 1,
      createdAt: T0,
    };
    const changed: VolumeRecord = { ...volume, spec: { ...volume.spec, tags: { constructor: 'z' } }, generation: 2, version: 2 };
    const record = streamRecord({ eventName: 'MODIFY', key: { kind: 'volume', volumeId: 'data-1' }, oldRecord: volume, newRecord: changed, sequenceNumber: 7, at: Date.parse(T0) });
    expect(fromStreamImage(record.dynamodb!.OldImage!)).toEqual(volume);
    expect(fromStreamImage(record.dynamodb!.NewImage!)).toEqual(changed);
  });
});
