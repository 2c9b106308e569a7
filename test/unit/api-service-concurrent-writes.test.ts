/**
 * The service's conditional writes when other writers get there first (another client, the
 * watcher, an executor), and its answers when the table fails under it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AttachmentRecord, ProvisionerRecord, RecordKey, VolumeRecord } from '../../lib/domain/records.js';
import { ConditionFailedError } from '../../lib/engine/ports.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { VolumeService } from '../../lib/api/service.js';
import { buildOpenApiDocument } from '../../lib/api/openapi.js';
import { apiHarness, INSTANCE_A, INSTANCE_B, ManualClock, sequentialIds, GP3, problemOf, serviceWorld } from './api-fixtures.js';

const volumeKey = (volumeId: string): RecordKey => ({ kind: 'volume', volumeId });
const attachmentKey = (volumeId: string, instanceId: string): RecordKey => ({ kind: 'attachment', volumeId, instanceId });
const ERROR_STATUS = { state: 'error' as const, code: 'InvalidVolume.ZoneMismatch', message: 'zone mismatch', attempts: 3, updatedAt: '2026-01-01T00:00:00.000Z' };

describe('VolumeService under concurrent writers', () => {
  let store: MemoryRecordStore;
  let service: VolumeService;

  beforeEach(() => {
    ({ store, service } = serviceWorld({ newVolumeId: sequentialIds() }));
  });

  const get = (key: RecordKey) => store.get(key);
  /** Every conditional update is beaten by another writer, as under a client rewriting the record in a loop. */
  const everyUpdateBeaten = () => {
    store.update = async () => {
      throw new ConditionFailedError('the record changed');
    };
  };
  /** Runs `meanwhile` once, just before the service's first create or update lands. */
  const beforeFirst = (method: 'create' | 'update', meanwhile: () => Promise<unknown>) => {
    const original = store[method].bind(store) as (...args: unknown[]) => Promise<unknown>;
    let raced = false;
    (store as unknown as Record<string, unknown>)[method] = async (...args: unknown[]) => {
      if (!raced) {
        raced = true;
        await meanwhile();
      }
      return original(...args);
    };
  };

  describe('PUT attachment', () => {
    it('answers with the attachment another request wrote between its read and its write (a repeated PUT), writing nothing more', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      const other = new VolumeService({ store, clock: new ManualClock() });
      beforeFirst('create', () => other.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdf' }));
      const answer = await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdf' });
      expect(answer.created).toBe(false);
      expect(answer.value).toMatchObject({ instanceId: INSTANCE_A, requestedDevice: '/dev/sdf', generation: 1 });
      expect(await store.attachmentsOfVolume('data-01')).toHaveLength(1);
    });

    it('is 409 naming the device when the attachment written meanwhile asked for another one', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      const other = new VolumeService({ store, clock: new ManualClock() });
      beforeFirst('create', () => other.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' }));
      const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdf' }));
      expect(problem.status).toBe(409);
      expect(problem.errors).toEqual([{ path: 'device', message: 'differs from /dev/sdg, the device requested before' }]);
      expect(await get(attachmentKey('data-01', INSTANCE_A))).toMatchObject({ requestedDevice: '/dev/sdg' });
    });

    it('is 409 "changed concurrently" when its write loses every time, and leaves no attachment', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      let creates = 0;
      store.create = async () => {
        creates++;
        throw new ConditionFailedError('taken');
      };
      const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, {}));
      expect([problem.status, problem.detail]).toEqual([409, `the attachment of data-01 to ${INSTANCE_A} changed concurrently; retry`]);
      expect(creates).toBe(3);
      expect(await store.attachmentsOfVolume('data-01')).toEqual([]);
    });

    it('lets a failure of the table other than a lost condition through at once, unretried', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      store.failNext('create', new Error('ProvisionedThroughputExceededException'));
      await expect(service.putAttachment('data-01', INSTANCE_A, {})).rejects.toThrow('ProvisionedThroughputExceededException');
      expect(await service.putAttachment('data-01', INSTANCE_A, {})).toMatchObject({ created: true });
    });
  });

  describe('retry', () => {
    const failedVolume = async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      await store.update<VolumeRecord>(volumeKey('data-01'), { status: ERROR_STATUS });
    };

    it('reads the volume again when the watcher wrote it between the read and the write, and retries it from there', async () => {
      await failedVolume();
      beforeFirst('update', () => store.update<VolumeRecord>(volumeKey('data-01'), { status: { ...ERROR_STATUS, message: 'zone mismatch (seen again)' } }));
      const view = await service.retryVolume('data-01');
      expect(view).toMatchObject({ generation: 2, status: { state: 'pending', attempts: 0, message: 'retry requested' } });
      expect(await get(volumeKey('data-01'))).toMatchObject({ generation: 2, retriedGeneration: 2 });
    });

    it('is 409 when the record left error between the read and the write: nothing is left to retry, and nothing is written', async () => {
      await failedVolume();
      beforeFirst('update', () => store.update<VolumeRecord>(volumeKey('data-01'), { status: { state: 'pending', attempts: 0, updatedAt: ERROR_STATUS.updatedAt } }));
      const problem = await problemOf(() => service.retryVolume('data-01'));
      expect([problem.status, problem.detail]).toEqual([409, 'volume data-01 is pending, not in error: there is nothing to retry']);
      expect(await get(volumeKey('data-01'))).toMatchObject({ generation: 1, status: { state: 'pending' } });
    });

    it('lets a failure of the table other than a lost condition through at once, unretried, and writes nothing', async () => {
      await failedVolume();
      store.failNext('update', new Error('ProvisionedThroughputExceededException'));
      await expect(service.retryVolume('data-01')).rejects.toThrow('ProvisionedThroughputExceededException');
      expect(await get(volumeKey('data-01'))).toMatchObject({ generation: 1, status: { state: 'error' } });
    });

    it('is 409 "changed concurrently" when every write loses, for a volume and an attachment', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      await store.update<VolumeRecord>(volumeKey('data-01'), { status: ERROR_STATUS });
      await store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), { status: ERROR_STATUS });
      everyUpdateBeaten();
      const volume = await problemOf(() => service.retryVolume('data-01'));
      expect([volume.status, volume.detail]).toEqual([409, 'volume data-01 was changed concurrently; read it again and retry']);
      const attachment = await problemOf(() => service.retryAttachment('data-01', INSTANCE_A));
      expect([attachment.status, attachment.detail]).toEqual([409, `attachment of data-01 to ${INSTANCE_A} was changed concurrently; read it again and retry`]);
      expect(await get(volumeKey('data-01'))).toMatchObject({ generation: 1, status: { state: 'error' } });
      expect(await get(attachmentKey('data-01', INSTANCE_A))).toMatchObject({ generation: 1, status: { state: 'error' } });
    });
  });

  describe('DELETE', () => {
    it('is 409 "changed concurrently; retry" when every write loses, for a volume and an attachment, which stay alive', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      everyUpdateBeaten();
      const volume = await problemOf(() => service.deleteVolume('data-01'));
      expect([volume.status, volume.detail]).toEqual([409, 'volume data-01 changed concurrently; retry']);
      const attachment = await problemOf(() => service.deleteAttachment('data-01', INSTANCE_A));
      expect([attachment.status, attachment.detail]).toEqual([409, `attachment of data-01 to ${INSTANCE_A} changed concurrently; retry`]);
      expect(await get(volumeKey('data-01'))).toMatchObject({ life: 'alive' });
      expect(await get(attachmentKey('data-01', INSTANCE_A))).toMatchObject({ life: 'alive' });
    });

    it('answers with the attachment as marked when a hand-written change left it not valid between the read and the write', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      const key = attachmentKey('data-01', INSTANCE_A);
      const read = (await get(key)) as AttachmentRecord;
      beforeFirst('update', async () => store.putRaw({ ...read, colour: 'red' }));
      const view = await service.deleteAttachment('data-01', INSTANCE_A);
      expect(view).toMatchObject({ volumeId: 'data-01', instanceId: INSTANCE_A, life: 'dying', generation: 1, status: { state: 'pending' } });
      expect(await get(key)).toMatchObject({ life: 'dying', colour: 'red' });
    });

    it('lets a failed read of the answer through once the volume is marked: the delete took, and repeating it answers', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      store.failNext('attachmentsOfVolume', new Error('ProvisionedThroughputExceededException'));
      await expect(service.deleteVolume('data-01')).rejects.toThrow('ProvisionedThroughputExceededException');
      expect(await get(volumeKey('data-01'))).toMatchObject({ life: 'dying' });
      expect(await service.deleteVolume('data-01')).toMatchObject({ volumeId: 'data-01', life: 'dying', attachments: [] });
    });
  });

  describe('POST /volumes', () => {
    it('with an id of its own, is 409 "being replaced; retry" when the id was taken by a volume gone again by the time it is read', async () => {
      store.create = async (record: ProvisionerRecord) => {
        throw new ConditionFailedError(`${record.volumeId} already exists`);
      };
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: GP3 }));
      expect([problem.status, problem.detail]).toEqual([409, 'volume data-01 is being replaced; retry']);
      expect(store.all()).toEqual([]);
    });

    it('reads the volume that took its id when the table does not return it with the refusal, and answers with it when it is the same', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      const create = store.create.bind(store);
      store.create = async (record: ProvisionerRecord) => {
        try {
          await create(record);
        } catch (error) {
          throw error instanceof ConditionFailedError ? new ConditionFailedError(error.message) : error;
        }
      };
      expect(await service.createVolume({ volumeId: 'data-01', spec: GP3 })).toMatchObject({ created: false, value: { volumeId: 'data-01' } });
      const differs = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: { ...GP3, sizeGiB: 30 } }));
      expect([differs.status, differs.errors]).toEqual([409, [{ path: 'spec.sizeGiB', message: 'is 30 here, 20 on the volume' }]]);
    });

    it('without an id, answers a failed write of the volume with the id generated for it, which may exist', async () => {
      store.failNext('create', new Error('RequestTimeout'));
      const problem = await problemOf(() => service.createVolume({ spec: GP3 }));
      expect(problem.status).toBe(500);
      expect(problem.detail).toContain('once volume vol-rec-1 (an id generated for this request) was asked for, so it may exist');
    });
  });

  describe('lists', () => {
    it('lets a failure of the table through (500, safe to repeat), not as a refused cursor', async () => {
      store.failNext('list', new Error('ProvisionedThroughputExceededException'));
      await expect(service.listVolumes({ limit: 10 })).rejects.toThrow('ProvisionedThroughputExceededException');
    });

    it('refuses a cursor that decodes to JSON other than an object, as it refuses any it did not issue', async () => {
      for (const json of ['null', '[]', '7', '"store"']) {
        const cursor = Buffer.from(json, 'utf8').toString('base64url');
        const problem = await problemOf(() => service.listVolumes({ limit: 10, cursor }));
        expect([problem.status, problem.errors], json).toEqual([400, [{ path: 'cursor', message: 'is not a cursor this API issued' }]]);
      }
    });

    it("lists an instance's volumes and attachments by volume id, and a volume's attachments by instance, in whatever order the table returns them", async () => {
      for (const volumeId of ['b', 'a_b', 'A', 'a-b', 'a']) await service.createVolume({ volumeId, spec: { ...GP3, multiAttach: true, volumeType: 'io2', iops: 3000 }, attachTo: { instanceId: INSTANCE_A } });
      await service.putAttachment('a', INSTANCE_B, {});
      // BatchGetItem answers in no particular order; a query's order is the index's, not the API's.
      const reversed = <T>(read: (...args: never[]) => Promise<T[]>) => async (...args: never[]) => [...(await read(...args))].reverse();
      store.getMany = reversed(store.getMany.bind(store) as never) as never;
      store.attachmentsOfInstance = reversed(store.attachmentsOfInstance.bind(store) as never) as never;
      store.attachmentsOfVolume = reversed(store.attachmentsOfVolume.bind(store) as never) as never;
      const order = ['A', 'a', 'a-b', 'a_b', 'b'];
      expect((await service.listVolumes({ limit: 10, instanceId: INSTANCE_A })).items.map((item) => item.volumeId)).toEqual(order);
      expect((await service.listInstanceAttachments(INSTANCE_A)).map((item) => item.volumeId)).toEqual(order);
      expect((await service.getVolume('a')).attachments.map((item) => item.instanceId)).toEqual([INSTANCE_A, INSTANCE_B]);
    });

    it("lists an instance's attachment that is not valid in its place among the others, by volume id", async () => {
      await service.createVolume({ volumeId: 'a-vol', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      await service.createVolume({ volumeId: 'c-vol', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      await service.createVolume({ volumeId: 'b-vol', spec: GP3, attachTo: { instanceId: INSTANCE_B } });
      store.putRaw({ kind: 'attachment', volumeId: 'b-vol', instanceId: INSTANCE_A, life: 'sleeping', generation: 1 });
      const listed = await service.listInstanceAttachments(INSTANCE_A);
      expect(listed.map((item) => [item.volumeId, 'invalid' in item])).toEqual([
        ['a-vol', false],
        ['b-vol', true],
        ['c-vol', false],
      ]);
    });
  });
});

describe('the API under writes that keep losing', () => {
  it('answers 409 `conflict` on every route that writes an existing record, and its reference says so', async () => {
    const api = apiHarness();
    const ok = (await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } } })).statusCode;
    expect(ok).toBe(201);
    await api.store.update<VolumeRecord>(volumeKey('data-01'), { status: ERROR_STATUS });
    await api.store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), { status: ERROR_STATUS });
    const beaten = async () => {
      throw new ConditionFailedError('the record changed');
    };
    api.store.update = beaten;
    api.store.create = beaten;
    const attachment = `/volumes/data-01/attachments/${INSTANCE_B}`;
    const requests = [
      { method: 'POST', url: '/volumes/data-01/retry', path: '/volumes/{volumeId}/retry' },
      { method: 'DELETE', url: '/volumes/data-01', path: '/volumes/{volumeId}' },
      { method: 'PATCH', url: '/volumes/data-01', path: '/volumes/{volumeId}', json: { sizeGiB: 40 } },
      { method: 'PUT', url: attachment, path: '/volumes/{volumeId}/attachments/{instanceId}' },
      { method: 'POST', url: `/volumes/data-01/attachments/${INSTANCE_A}/retry`, path: '/volumes/{volumeId}/attachments/{instanceId}/retry' },
      { method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}`, path: '/volumes/{volumeId}/attachments/{instanceId}' },
      { method: 'POST', url: '/volumes', path: '/volumes', json: { spec: GP3 } },
    ];
    const documented = buildOpenApiDocument().paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    for (const { method, url, path, json } of requests) {
      const response = await api.call({ method, url, ...(json ? { json } : {}) });
      const label = `${method} ${url}`;
      expect(response.statusCode, label).toBe(409);
      expect((response.json as { type: string }).type, label).toBe('urn:ebs-provisioner:problem:conflict');
      expect(documented[path]![method.toLowerCase()]!.responses['409']!.description, label).toContain('changed concurrently');
    }
  });
});

describe('POST /volumes without an id', () => {
  it('never answers with, nor attaches, a volume already under the id it generated: 409, nothing written', async () => {
    const store = new MemoryRecordStore();
    const ids = ['data-01', 'data-02'];
    const service = new VolumeService({ store, clock: new ManualClock(), newVolumeId: () => ids.shift()! });
    await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    const writes = store.writes;
    const problem = await problemOf(() => service.createVolume({ spec: GP3, attachTo: { instanceId: INSTANCE_A } }));
    expect([problem.status, problem.detail]).toEqual([409, 'the id data-01 generated for this request is taken by another volume; nothing was written: repeat the request']);
    expect(store.writes).toBe(writes);
    expect(await store.attachmentsOfVolume('data-01')).toEqual([]);
    // Repeated, the request gets another id.
    expect(await service.createVolume({ spec: GP3 })).toMatchObject({ created: true, value: { volumeId: 'data-02' } });
  });
});
