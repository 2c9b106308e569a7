/**
 * A delete under `If-Match` acts only on the record the header names: when that record is deleted
 * and another created under the same id between the request's read and its write, the new one is
 * left as it is and the answer is 412 (docs/api.md: "deleted and created again").
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import { entityTag, parseIfMatch } from '../../lib/api/preconditions.js';
import { VolumeService } from '../../lib/api/service.js';
import type { AttachmentRecord, RecordKey, VolumeRecord } from '../../lib/domain/records.js';
import type { RecordChanges, WriteCondition } from '../../lib/engine/ports.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { INSTANCE_A, ManualClock, sequentialIds, GP3, serviceWorld } from './api-fixtures.js';

const volumeKey = (volumeId: string): RecordKey => ({ kind: 'volume', volumeId });
const attachmentKey = (volumeId: string, instanceId: string): RecordKey => ({ kind: 'attachment', volumeId, instanceId });

describe('a delete under If-Match raced by a delete and create of the record', () => {
  let store: MemoryRecordStore;
  let clock: ManualClock;
  let service: VolumeService;

  beforeEach(() => {
    ({ store, clock, service } = serviceWorld({ newVolumeId: sequentialIds() }));
  });

  /** Runs `meanwhile` once, just before the service's first write lands. */
  const raceFirstWrite = (meanwhile: () => Promise<unknown>) => {
    let raced = false;
    const update = store.update.bind(store);
    store.update = async <R extends VolumeRecord | AttachmentRecord>(key: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition) => {
      if (!raced) {
        raced = true;
        await meanwhile();
      }
      return update<R>(key, changes, condition);
    };
  };

  const statusOf = async (run: () => Promise<unknown>) => {
    try {
      await run();
      return 'done';
    } catch (error) {
      if (error instanceof ApiProblem) return error.status;
      throw error;
    }
  };

  it('of a volume: 412, and the volume created again stays alive', async () => {
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    const read = (await store.get(volumeKey('data-01'))) as VolumeRecord;
    raceFirstWrite(async () => {
      await store.remove(volumeKey('data-01'));
      clock.advance(1000);
      await new VolumeService({ store, clock, newVolumeId: sequentialIds() }).createVolume({ volumeId: 'data-01', spec: GP3 });
    });
    expect(await statusOf(() => service.deleteVolume('data-01', parseIfMatch(entityTag(read))))).toBe(412);
    const now = (await store.get(volumeKey('data-01'))) as VolumeRecord;
    expect(now.createdAt).not.toBe(read.createdAt);
    expect(now.life).toBe('alive');
  });

  it('of an attachment: 412, and the attachment created again stays alive', async () => {
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    await service.putAttachment('data-01', INSTANCE_A, {});
    const key = attachmentKey('data-01', INSTANCE_A);
    const read = (await store.get(key)) as AttachmentRecord;
    raceFirstWrite(async () => {
      await store.remove(key);
      clock.advance(1000);
      await new VolumeService({ store, clock, newVolumeId: sequentialIds() }).putAttachment('data-01', INSTANCE_A, {});
    });
    expect(await statusOf(() => service.deleteAttachment('data-01', INSTANCE_A, parseIfMatch(entityTag(read))))).toBe(412);
    const now = (await store.get(key)) as AttachmentRecord;
    expect(now.createdAt).not.toBe(read.createdAt);
    expect(now.life).toBe('alive');
  });
});
