/**
 * A delete under `If-Match` of an attachment written into the table without a generation acts
 * only on the record the header names: when that record is written again by hand under the same
 * id (another creation time, the same version) between the request's read and its write, the new
 * one is left as it is and the answer is 412 (docs/api.md: "deleted and created again").
 */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import { entityTag, parseIfMatch } from '../../lib/api/preconditions.js';
import type { AttachmentRecord, RecordKey, VolumeRecord } from '../../lib/domain/records.js';
import type { RecordChanges, WriteCondition } from '../../lib/engine/ports.js';
import { GP3, INSTANCE_A, serviceWorld } from './api-fixtures.js';

const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
const handWritten = (createdAt: string) => ({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive', createdAt });

describe('a delete under If-Match of a hand-written attachment written again between read and write', () => {
  it('is 412, and the attachment written again stays alive', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    store.putRaw(handWritten('2026-01-01T00:00:00.000Z'));
    const read = (await store.get(key)) as AttachmentRecord;
    expect(read.generation).toBeUndefined();

    let raced = false;
    const update = store.update.bind(store);
    store.update = async <R extends VolumeRecord | AttachmentRecord>(at: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition) => {
      if (!raced) {
        raced = true;
        await store.remove(key);
        store.putRaw(handWritten('2026-01-02T00:00:00.000Z'));
      }
      return update<R>(at, changes, condition);
    };

    const refused = await service.deleteAttachment('data-01', INSTANCE_A, parseIfMatch(entityTag(read))).catch((error: unknown) => error);
    expect(raced).toBe(true);
    expect(refused).toBeInstanceOf(ApiProblem);
    expect((refused as ApiProblem).status).toBe(412);
    const now = (await store.get(key)) as AttachmentRecord;
    expect(now.createdAt).toBe('2026-01-02T00:00:00.000Z');
    expect(now.life).toBe('alive');
  });
});
