import { beforeEach, describe, expect, it } from 'vitest';
import type { AttachmentRecord, RecordKey, VolumeRecord, VolumeSpec } from '../../lib/domain/records.js';
import type { RecordChanges, WriteCondition } from '../../lib/engine/ports.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import type { SharedRateBudget } from '../../lib/engine/ports.js';
import { MAX_STORE_READS_PER_PAGE, VolumeService } from '../../lib/api/service.js';
import { entityTag, parseIfMatch } from '../../lib/api/preconditions.js';
import type { AttachmentView, ListVolumesQuery } from '../../lib/api/schemas.js';
import { INSTANCE_A, INSTANCE_B, ManualClock, sequentialIds, GP3, problemOf, serviceWorld } from './api-fixtures.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ as ENGINE_AZ, harness, newVolume } from './engine-fixtures.js';

/** A spec that names no AZ: only `attachTo` can place it. */
const UNPLACED: VolumeSpec = { sizeGiB: 20, volumeType: 'gp3' };
const volumeKey = (volumeId: string): RecordKey => ({ kind: 'volume', volumeId });
const attachmentKey = (volumeId: string, instanceId: string): RecordKey => ({ kind: 'attachment', volumeId, instanceId });

describe('VolumeService', () => {
  let store: MemoryRecordStore;
  let clock: ManualClock;
  let service: VolumeService;

  beforeEach(() => {
    ({ store, clock, service } = serviceWorld({ newVolumeId: sequentialIds() }));
  });

  const volume = async (volumeId: string) => (await store.get(volumeKey(volumeId))) as VolumeRecord | undefined;
  /** Runs `meanwhile` once, just before the service's first write lands: a race between its read and its write. */
  const raceFirstWrite = (meanwhile: (update: MemoryRecordStore['update']) => Promise<unknown>) => {
    let raced = false;
    const update = store.update.bind(store);
    store.update = async <R extends VolumeRecord | AttachmentRecord>(key: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition) => {
      if (!raced) {
        raced = true;
        await meanwhile(update);
      }
      return update<R>(key, changes, condition);
    };
  };
  const attachment = async (volumeId: string, instanceId: string) =>
    (await store.get(attachmentKey(volumeId, instanceId))) as AttachmentRecord | undefined;

  describe('createVolume', () => {
    it('names the id it generated when the request fails once the volume is asked for: repeated, the request would ask for another volume', async () => {
      const log = new RecordingLog();
      service = new VolumeService({ store, clock, newVolumeId: sequentialIds(), log });
      // The volume is written; reading it back for the answer fails.
      store.failNext('attachmentsOfVolume', new Error('ProvisionedThroughputExceededException'));
      const problem = await problemOf(() => service.createVolume({ spec: GP3 }));
      expect([problem.status, problem.kind]).toEqual([500, 'internal']);
      expect(problem.detail).toBe(
        'the request failed unexpectedly once volume vol-rec-1 (an id generated for this request) was asked for, so it may exist: read it (GET /volumes/vol-rec-1) rather than repeating the request, which would ask for another volume',
      );
      expect(await volume('vol-rec-1')).toMatchObject({ life: 'alive' });
      expect(log.entries).toMatchObject([{ level: 'error', attributes: { volumeId: 'vol-rec-1', error: { message: 'ProvisionedThroughputExceededException' } } }]);
      // An id the client chose makes the request repeatable: the failure is left as it is (a 500, safe to retry).
      store.failNext('attachmentsOfVolume', new Error('ProvisionedThroughputExceededException'));
      await expect(service.createVolume({ volumeId: 'data-01', spec: GP3 })).rejects.toThrow('ProvisionedThroughputExceededException');
      expect((await service.createVolume({ volumeId: 'data-01', spec: GP3 })).created).toBe(false);
    });

    it('names the volume it created under a generated id when the attachment asked for with it is refused by a request landing meanwhile', async () => {
      // Another volume's attachment on the instance takes the device between the check and the attachment's write.
      const create = store.create.bind(store);
      store.create = async (record) => {
        await create(record);
        if (record.kind === 'volume' && record.volumeId === 'vol-rec-1') {
          await create({ kind: 'attachment', volumeId: 'other', instanceId: INSTANCE_A, life: 'alive', requestedDevice: '/dev/sdf', generation: 1, status: { state: 'pending', attempts: 0, updatedAt: '' }, version: 1, createdAt: '' });
        }
      };
      const problem = await problemOf(() => service.createVolume({ spec: GP3, attachTo: { instanceId: INSTANCE_A, device: '/dev/sdf' } }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toMatch(/; volume vol-rec-1 \(an id generated for this request\) was created all the same: attach it with PUT, or delete it$/);
      expect(problem.errors).toEqual([{ path: 'attachTo.device', message: `is held by volume other on ${INSTANCE_A}` }]);
      expect(await volume('vol-rec-1')).toMatchObject({ life: 'alive' });
    });

    it('writes a pending, alive volume at generation 1 with no attempts', async () => {
      const { created, value } = await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      expect(created).toBe(true);
      expect(value).toMatchObject({ volumeId: 'data-01', spec: GP3, life: 'alive', generation: 1, attachments: [] });
      const stored = await volume('data-01');
      expect(stored).toMatchObject({
        kind: 'volume',
        spec: GP3,
        life: 'alive',
        generation: 1,
        status: { state: 'pending', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
        createdAt: '2026-01-01T00:00:00.000Z',
      });
      expect(stored?.claim).toBeUndefined();
      expect(value).not.toHaveProperty('claim');
      expect(value).not.toHaveProperty('version');
    });

    it('generates an id when none is given', async () => {
      const first = await service.createVolume({ spec: GP3 });
      const second = await service.createVolume({ spec: GP3 });
      expect([first.value.volumeId, second.value.volumeId]).toEqual(['vol-rec-1', 'vol-rec-2']);
      expect(store.writes).toBe(2);
    });

    it('answers a repeated request with the existing volume and writes nothing', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, tags: { a: '1', b: '2' } } });
      const before = await volume('data-01');
      const writes = store.writes;
      clock.advance(60_000);
      // Same spec, keys in another order.
      const again = await service.createVolume({ volumeId: 'data-01', spec: { tags: { b: '2', a: '1' }, availabilityZone: 'us-east-1a', volumeType: 'gp3', sizeGiB: 20 } });
      expect(again.created).toBe(false);
      expect(again.value.createdAt).toBe('2026-01-01T00:00:00.000Z');
      expect(store.writes).toBe(writes);
      expect(await volume('data-01')).toEqual(before);
    });

    it('takes no tags and an empty tag map as the same request, as PATCH does', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, tags: {} } });
      await service.createVolume({ volumeId: 'data-02', spec: GP3 });
      const writes = store.writes;
      expect((await service.createVolume({ volumeId: 'data-01', spec: GP3 })).created).toBe(false);
      expect((await service.createVolume({ volumeId: 'data-02', spec: { ...GP3, tags: {} } })).created).toBe(false);
      // A record holding an empty map (written straight into the table) likewise.
      await store.update<VolumeRecord>(volumeKey('data-02'), { spec: { ...GP3, tags: {} } });
      expect((await service.createVolume({ volumeId: 'data-02', spec: GP3 })).created).toBe(false);
      expect(store.writes).toBe(writes + 1);
    });

    it('takes a repeated request that spells out what EBS provisions by default as the same volume', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      await service.createVolume({ volumeId: 'data-02', spec: { ...GP3, iops: 3000, throughput: 125 } });
      const writes = store.writes;
      expect((await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, iops: 3000 } })).created).toBe(false);
      expect((await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, iops: 3000, throughput: 125 } })).created).toBe(false);
      expect((await service.createVolume({ volumeId: 'data-02', spec: GP3 })).created).toBe(false);
      expect(store.writes).toBe(writes);
      expect((await volume('data-01'))?.spec).toEqual(GP3);

      // Other performance is another volume, named by the field that differs.
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: { ...GP3, iops: 4000, throughput: 125 } }));
      expect(problem.status).toBe(409);
      expect(problem.errors).toEqual([{ path: 'spec.iops', message: 'is 4000 here, not set (3000 by default) on the volume' }]);
      const other = await problemOf(() => service.createVolume({ volumeId: 'data-02', spec: { ...GP3, throughput: 250 } }));
      expect(other.errors).toEqual([{ path: 'spec.throughput', message: 'is 250 here, 125 on the volume' }]);
      // Another type: the type differs, and the IOPS a type without them leaves out are no further difference.
      const typed = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: { ...GP3, volumeType: 'gp2' } }));
      expect(typed.errors).toEqual([{ path: 'spec.volumeType', message: 'is gp2 here, gp3 on the volume' }]);
      expect(store.writes).toBe(writes);
    });

    it('repeats a create that spells out encrypted: false or multiAttach: false as the create that leaves them out, and the other way round', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      expect((await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, encrypted: false, multiAttach: false } })).created).toBe(false);
      await service.createVolume({ volumeId: 'data-02', spec: { ...GP3, encrypted: false, multiAttach: false } });
      expect((await service.createVolume({ volumeId: 'data-02', spec: GP3 })).created).toBe(false);
      // true is another volume.
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-02', spec: { ...GP3, encrypted: true } }));
      expect(problem.errors).toEqual([{ path: 'spec.encrypted', message: 'is true here, false on the volume' }]);
    });

    it('rejects the same id with a different spec as a conflict and changes nothing', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      const before = await volume('data-01');
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: { ...GP3, sizeGiB: 21, tags: { team: 'a' } } }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toBe('volume data-01 already exists and differs from this request: spec.sizeGiB: is 21 here, 20 on the volume; spec.tags: is {"team":"a"} here, not set on the volume');
      expect(problem.errors).toEqual([
        { path: 'spec.sizeGiB', message: 'is 21 here, 20 on the volume' },
        { path: 'spec.tags', message: 'is {"team":"a"} here, not set on the volume' },
      ]);
      expect(await volume('data-01')).toEqual(before);
    });

    it('rejects reusing the id of a volume being deleted', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      await service.deleteVolume('data-01');
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: GP3 }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toContain('being deleted');
    });

    it('refuses a spec that names no AZ without attachTo, naming the field, and writes nothing', async () => {
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: UNPLACED }));
      expect(problem.kind).toBe('validation-failed');
      expect(problem.errors).toEqual([{ path: 'spec.availabilityZone', message: expect.stringContaining('is required unless placementInstanceId or attachTo') }]);
      expect(await store.list({ limit: 10 })).toEqual({ items: [] });
      // Placed by an instance instead: accepted.
      expect((await service.createVolume({ volumeId: 'data-02', spec: { ...UNPLACED, placementInstanceId: INSTANCE_A } })).created).toBe(true);
    });

    it('with attachTo, creates the attachment and places the volume in the instance AZ', async () => {
      const { value } = await service.createVolume({ volumeId: 'data-01', spec: UNPLACED, attachTo: { instanceId: INSTANCE_A, device: '/dev/sdf' } });
      expect(value.spec).toEqual({ ...UNPLACED, placementInstanceId: INSTANCE_A });
      expect(value.attachments).toHaveLength(1);
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({
        kind: 'attachment',
        life: 'alive',
        requestedDevice: '/dev/sdf',
        // The reason the watcher would write for it, so the watcher has nothing to write.
        status: { state: 'pending', attempts: 0, message: 'waiting for volume data-01 to become available' },
      });
    });

    it('with attachTo and an explicit AZ, keeps the AZ and sets no placement instance', async () => {
      const spec = { ...UNPLACED, availabilityZone: 'eu-west-1a' };
      const { value } = await service.createVolume({ volumeId: 'data-01', spec, attachTo: { instanceId: INSTANCE_A } });
      expect(value.spec).toEqual(spec);
    });

    it('repeats a create-with-attach idempotently', async () => {
      const request = { volumeId: 'data-01', spec: UNPLACED, attachTo: { instanceId: INSTANCE_A } };
      await service.createVolume(request);
      const writes = store.writes;
      const again = await service.createVolume(request);
      expect(again.created).toBe(false);
      expect(again.value.attachments.map((a) => a.instanceId)).toEqual([INSTANCE_A]);
      expect(store.writes).toBe(writes);
    });

    it('answers a repeated create whose attachment is new (the first was detached and removed) as the existing volume, not created, with the attachment asked for again', async () => {
      const request = { volumeId: 'data-01', spec: UNPLACED, attachTo: { instanceId: INSTANCE_A } };
      await service.createVolume(request);
      await store.remove(attachmentKey('data-01', INSTANCE_A));
      const again = await service.createVolume(request);
      expect(again.created).toBe(false);
      expect(again.value.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE_A, life: 'alive', status: expect.objectContaining({ state: 'pending' }) })]);
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ life: 'alive', status: { state: 'pending' } });
    });

    it('writes nothing when the attachment it asks for is refused: a device another volume holds on the instance', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: UNPLACED, attachTo: { instanceId: INSTANCE_A, device: '/dev/sdf' } });
      const writes = store.writes;
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-02', spec: UNPLACED, attachTo: { instanceId: INSTANCE_A, device: '/dev/sdf' } }));
      expect(problem.status).toBe(409);
      expect(problem.errors).toEqual([{ path: 'attachTo.device', message: `is held by volume data-01 on ${INSTANCE_A}` }]);
      expect(await volume('data-02')).toBeUndefined();
      expect(store.writes).toBe(writes);
      // Another device: created, with its attachment.
      const { created, value } = await service.createVolume({ volumeId: 'data-02', spec: UNPLACED, attachTo: { instanceId: INSTANCE_A, device: '/dev/sdg' } });
      expect(created).toBe(true);
      expect(value.attachments.map((a) => a.instanceId)).toEqual([INSTANCE_A]);
    });

    it('refuses the same request attached to another instance, saying the volume is placed by the first one, not that the spec differs', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: UNPLACED, attachTo: { instanceId: INSTANCE_A } });
      const writes = store.writes;
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: UNPLACED, attachTo: { instanceId: INSTANCE_B } }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toBe(
        `volume data-01 already exists and differs from this request: attachTo.instanceId: places the volume in the AZ of ${INSTANCE_B}, but the volume is placed in the AZ of ${INSTANCE_A}`,
      );
      expect(problem.errors.map((issue) => issue.path)).toEqual(['attachTo.instanceId']);
      expect(await attachment('data-01', INSTANCE_B)).toBeUndefined();
      expect(store.writes).toBe(writes);

      // A spec field that differs as well is named on its own.
      const both = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: { ...UNPLACED, sizeGiB: 30 }, attachTo: { instanceId: INSTANCE_B } }));
      expect(both.errors.map((issue) => issue.path)).toEqual(['attachTo.instanceId', 'spec.sizeGiB']);
    });

    it('refuses the same request with an AZ attached to another instance, naming the attachment the volume has', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      const writes = store.writes;
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_B } }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toBe(`volume data-01 already has an attachment to ${INSTANCE_A} (pending) and is not multi-attach; detach it first`);
      expect(problem.errors).toEqual([{ path: 'attachTo.instanceId', message: `the volume is not multi-attach and already has an attachment to ${INSTANCE_A}` }]);
      expect(store.writes).toBe(writes);
    });

    it('names a placement given in the spec as a spec field', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: { ...UNPLACED, placementInstanceId: INSTANCE_A } });
      const problem = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: GP3 }));
      expect(problem.errors).toEqual([
        { path: 'spec.availabilityZone', message: 'is us-east-1a here, not set on the volume' },
        { path: 'spec.placementInstanceId', message: `is not set here, ${INSTANCE_A} on the volume` },
      ]);
    });
  });

  describe('listVolumes', () => {
    async function seed(count: number) {
      for (let i = 1; i <= count; i++) await service.createVolume({ volumeId: `vol-${String(i).padStart(2, '0')}`, spec: GP3 });
    }
    // As the system writes them: a volume available or in use holds its EC2 volume's id.
    const setState = (volumeId: string, state: VolumeRecord['status']['state']) =>
      store.update<VolumeRecord>(volumeKey(volumeId), {
        status: { state, attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
        ...(state === 'available' || state === 'in-use' ? { ebsVolumeId: 'vol-0123456789abcdef0' } : {}),
      });

    it('pages through every volume exactly once', async () => {
      await seed(5);
      await service.putAttachment('vol-01', INSTANCE_A, {});
      const seen: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await service.listVolumes({ limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.items.length).toBeLessThanOrEqual(2);
        seen.push(...page.items.map((v) => v.volumeId));
        cursor = page.cursor;
        pages++;
      } while (cursor);
      expect(seen.sort()).toEqual(['vol-01', 'vol-02', 'vol-03', 'vol-04', 'vol-05']);
      expect(pages).toBe(3);
    });

    it('filters by state, filling the page across store pages', async () => {
      await seed(6);
      await setState('vol-02', 'available');
      await setState('vol-05', 'available');
      await setState('vol-06', 'available');
      const first = await service.listVolumes({ limit: 2, state: 'available' });
      expect(first.items.map((v) => v.volumeId)).toEqual(['vol-02', 'vol-05']);
      expect(first.items.every((v) => v.status.state === 'available')).toBe(true);
      const second = await service.listVolumes({ limit: 2, state: 'available', cursor: first.cursor! });
      expect(second.items.map((v) => v.volumeId)).toEqual(['vol-06']);
      expect(second.cursor).toBeUndefined();
    });

    it('returns a short page with a cursor when the filter matches little, instead of scanning everything', async () => {
      await seed(MAX_STORE_READS_PER_PAGE + 3);
      await setState(`vol-${MAX_STORE_READS_PER_PAGE + 3}`, 'error');
      const first = await service.listVolumes({ limit: 1, state: 'error' });
      expect(first.items).toEqual([]);
      expect(first.cursor).toBeDefined();
      const second = await service.listVolumes({ limit: 1, state: 'error', cursor: first.cursor! });
      expect(second.items.map((v) => v.volumeId)).toEqual([`vol-${MAX_STORE_READS_PER_PAGE + 3}`]);
    });

    it('filters by instance, with pagination and the state filter', async () => {
      await seed(4);
      for (const id of ['vol-04', 'vol-01', 'vol-03']) await service.putAttachment(id, INSTANCE_A, {});
      await service.putAttachment('vol-02', INSTANCE_B, {});
      const first = await service.listVolumes({ limit: 2, instanceId: INSTANCE_A });
      expect(first.items.map((v) => v.volumeId)).toEqual(['vol-01', 'vol-03']);
      const second = await service.listVolumes({ limit: 2, instanceId: INSTANCE_A, cursor: first.cursor! });
      expect(second.items.map((v) => v.volumeId)).toEqual(['vol-04']);
      expect(second.cursor).toBeUndefined();

      await setState('vol-03', 'in-use');
      const inUse = await service.listVolumes({ limit: 10, instanceId: INSTANCE_A, state: 'in-use' });
      expect(inUse.items.map((v) => v.volumeId)).toEqual(['vol-03']);
    });

    it("pages by instance from the last volume returned: an attachment removed or added before it between pages moves no volume past the cursor", async () => {
      await seed(5);
      for (const id of ['vol-02', 'vol-03', 'vol-04', 'vol-05']) await service.putAttachment(id, INSTANCE_A, {});
      const first = await service.listVolumes({ limit: 2, instanceId: INSTANCE_A });
      expect(first.items.map((v) => v.volumeId)).toEqual(['vol-02', 'vol-03']);
      // vol-02 detached (its record removed) between the pages: vol-04 is not skipped.
      await store.remove(attachmentKey('vol-02', INSTANCE_A));
      const second = await service.listVolumes({ limit: 2, instanceId: INSTANCE_A, cursor: first.cursor! });
      expect(second.items.map((v) => v.volumeId)).toEqual(['vol-04', 'vol-05']);
      expect(second.cursor).toBeUndefined();

      // vol-01 attached between the pages: vol-03 is not shown again.
      const again = await service.listVolumes({ limit: 1, instanceId: INSTANCE_A });
      expect(again.items.map((v) => v.volumeId)).toEqual(['vol-03']);
      await service.putAttachment('vol-01', INSTANCE_A, {});
      const next = await service.listVolumes({ limit: 1, instanceId: INSTANCE_A, cursor: again.cursor! });
      expect(next.items.map((v) => v.volumeId)).toEqual(['vol-04']);

      // A cursor an earlier version issued (a position) still reads.
      const earlier = Buffer.from(JSON.stringify({ filter: `${INSTANCE_A}|`, offset: 2 })).toString('base64url');
      const resumed = await service.listVolumes({ limit: 1, instanceId: INSTANCE_A, cursor: earlier });
      expect(resumed.items.map((v) => v.volumeId)).toEqual(['vol-04']);
    });

    it('rejects a cursor issued for another filter, or one it did not issue', async () => {
      await seed(3);
      const page = await service.listVolumes({ limit: 1 });
      const other = await problemOf(() => service.listVolumes({ limit: 1, state: 'available', cursor: page.cursor! }));
      expect(other.status).toBe(400);
      expect(other.errors).toEqual([{ path: 'cursor', message: 'was issued for a different state/instanceId filter' }]);
      const forged = await problemOf(() => service.listVolumes({ limit: 1, cursor: 'not-a-cursor' }));
      expect(forged.errors[0]?.path).toBe('cursor');
    });

    it('rejects a hand-made cursor with fields its list does not use (never starting again from the first page), on each list', async () => {
      await seed(3);
      for (const id of ['vol-01', 'vol-02', 'vol-03']) await service.putAttachment(id, INSTANCE_A, {});
      const cursor = (fields: Record<string, unknown>) => Buffer.from(JSON.stringify(fields)).toString('base64url');
      const table = JSON.parse(Buffer.from((await service.listVolumes({ limit: 1 })).cursor!, 'base64url').toString('utf8')) as { store: string };
      const cases: Array<[ListVolumesQuery, Record<string, unknown>]> = [
        [{ limit: 1 }, { filter: '|', after: 'vol-01' }],
        [{ limit: 1 }, { filter: '|', offset: 1 }],
        [{ limit: 1 }, { filter: '|' }],
        [{ limit: 1 }, { filter: '|', store: table.store, after: 'vol-01' }],
        [{ limit: 1 }, { filter: '|', store: table.store, next: 'x' }],
        [{ limit: 1, state: 'pending' }, { filter: '|pending', offset: 1 }],
        [{ limit: 1, instanceId: INSTANCE_A }, { filter: `${INSTANCE_A}|`, store: table.store }],
        [{ limit: 1, instanceId: INSTANCE_A }, { filter: `${INSTANCE_A}|` }],
        [{ limit: 1, instanceId: INSTANCE_A }, { filter: `${INSTANCE_A}|`, after: 'vol-01', offset: 2 }],
        [{ limit: 1, instanceId: INSTANCE_A, state: 'pending' }, { filter: `${INSTANCE_A}|pending`, after: 'vol-01', page: 2 }],
      ];
      for (const [query, fields] of cases) {
        const problem = await problemOf(() => service.listVolumes({ ...query, cursor: cursor(fields) }));
        expect(problem.status, JSON.stringify(fields)).toBe(400);
        expect(problem.errors.map((e) => e.path)).toEqual(['cursor']);
      }
      // The cursors each list issues still work on it.
      for (const query of [{ limit: 1 }, { limit: 1, state: 'pending' as const }, { limit: 1, instanceId: INSTANCE_A }, { limit: 1, instanceId: INSTANCE_A, state: 'pending' as const }]) {
        const first = await service.listVolumes(query);
        const second = await service.listVolumes({ ...query, cursor: first.cursor! });
        expect(second.items.map((v) => v.volumeId)).not.toContain(first.items[0]?.volumeId);
        expect(second.items.length).toBe(1);
      }
    });

    it('rejects a forged instance cursor with a negative offset, before reading or listing anything', async () => {
      await seed(3);
      for (const id of ['vol-01', 'vol-02', 'vol-03']) await service.putAttachment(id, INSTANCE_A, {});
      const forged = Buffer.from(JSON.stringify({ filter: `${INSTANCE_A}|`, offset: -1 })).toString('base64url');
      const reads = store.reads;
      const problem = await problemOf(() => service.listVolumes({ limit: 10, instanceId: INSTANCE_A, cursor: forged }));
      expect(problem.status).toBe(400);
      expect(problem.errors).toEqual([{ path: 'cursor', message: 'is not a cursor this API issued' }]);
      expect(store.reads).toBe(reads);
    });

    it("reports the store's rejection of a tampered inner cursor as a bad cursor", async () => {
      await seed(3);
      const page = await service.listVolumes({ limit: 1 });
      const issued = JSON.parse(Buffer.from(page.cursor!, 'base64url').toString('utf8')) as Record<string, unknown>;
      const tampered = Buffer.from(JSON.stringify({ ...issued, store: 'forged' })).toString('base64url');
      const problem = await problemOf(() => service.listVolumes({ limit: 1, cursor: tampered }));
      expect(problem.status).toBe(400);
      expect(problem.errors).toEqual([{ path: 'cursor', message: 'is not a cursor this API issued' }]);
    });
  });

  describe('getVolume', () => {
    it('shows the volume with its attachments and status', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      const details = await service.getVolume('data-01');
      expect(details.status).toMatchObject({ state: 'pending', attempts: 0 });
      expect(details.attachments).toEqual([
        expect.objectContaining({ volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive', status: expect.objectContaining({ state: 'pending' }) }),
      ]);
    });

    it('is 404 for an unknown volume', async () => {
      expect((await problemOf(() => service.getVolume('nope'))).status).toBe(404);
    });
  });

  describe('patchVolume', () => {
    beforeEach(async () => {
      await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, iops: 4000 } });
    });

    it('grows the volume and bumps the generation', async () => {
      const details = await service.patchVolume('data-01', { sizeGiB: 40 });
      expect(details.spec).toEqual({ ...GP3, iops: 4000, sizeGiB: 40 });
      expect(details.generation).toBe(2);
      expect((await volume('data-01'))?.generation).toBe(2);
    });

    it('never lands on a record deleted and created again under the id between its read and its write (the version starting again)', async () => {
      raceFirstWrite(async () => {
        await store.remove(volumeKey('data-01'));
        clock.advance(1000);
        await new VolumeService({ store, clock, newVolumeId: sequentialIds() }).createVolume({
          volumeId: 'data-01',
          spec: { sizeGiB: 500, volumeType: 'io2', iops: 10_000, availabilityZone: 'us-east-1a', encrypted: true },
        });
      });
      const details = await service.patchVolume('data-01', { tags: { team: 'storage' } });
      // The new record keeps its own spec, patched on a second read: the old one's is never written over it.
      expect((await volume('data-01'))?.spec).toMatchObject({ sizeGiB: 500, volumeType: 'io2', encrypted: true, tags: { team: 'storage' } });
      expect(details.spec).toEqual((await volume('data-01'))?.spec);
    });

    it('changes type and clears an optional field with null', async () => {
      const details = await service.patchVolume('data-01', { volumeType: 'gp2', iops: null });
      expect(details.spec).toEqual({ sizeGiB: 20, volumeType: 'gp2', availabilityZone: 'us-east-1a' });
    });

    /** What the executor writes once EC2 created the volume and reported it. */
    const createdInEbs = (observed: VolumeRecord['observed'], spec: VolumeSpec = { ...GP3, iops: 4000 }) =>
      store.update<VolumeRecord>(volumeKey('data-01'), {
        createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec },
        ebsVolumeId: 'vol-0123456789abcdef0',
        observed,
        status: { state: 'available', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
      });

    it('replaces the client tags of a volume EBS holds and bumps the generation; null removes them all', async () => {
      await createdInEbs({ sizeGiB: 20, volumeType: 'gp3', iops: 4000, throughput: 125, tags: { team: 'a' } }, { ...GP3, iops: 4000, tags: { team: 'a' } });
      await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, iops: 4000, tags: { team: 'a', env: 'dev' } } });
      const details = await service.patchVolume('data-01', { tags: { team: 'b' } });
      expect(details.spec.tags).toEqual({ team: 'b' });
      expect(details.generation).toBe(2);
      const cleared = await service.patchVolume('data-01', { tags: null });
      expect(cleared.spec.tags).toBeUndefined();
      expect(cleared.generation).toBe(3);
      // The same tags in another order change nothing.
      await service.patchVolume('data-01', { tags: { b: '2', a: '1' } });
      expect((await service.patchVolume('data-01', { tags: { a: '1', b: '2' } })).generation).toBe(4);
    });

    it('changes nothing when a PATCH removes the tags of a volume that has none (an empty map)', async () => {
      await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, tags: {} } });
      const writes = store.writes;
      expect((await service.patchVolume('data-01', { tags: {} })).generation).toBe(1);
      expect((await service.patchVolume('data-01', { tags: null })).generation).toBe(1);
      expect(store.writes).toBe(writes);
    });

    it('rejects invalid tags and the ownership tag keys with the field named, and writes nothing', async () => {
      const before = await volume('data-01');
      const writes = store.writes;
      const ownership = await problemOf(() => service.patchVolume('data-01', { tags: { [OWNERSHIP_TAGS.owner]: 'other-stack' } }));
      expect(ownership.status).toBe(400);
      expect(ownership.errors).toEqual([{ path: `tags["${OWNERSHIP_TAGS.owner}"]`, message: 'tag keys starting with "ebs-provisioner:" are reserved' }]);
      const tooMany = await problemOf(() => service.patchVolume('data-01', { tags: Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'v'])) }));
      expect(tooMany.errors).toEqual([{ path: 'tags', message: 'at most 48 tags, got 49' }]);
      expect(store.writes).toBe(writes);
      expect(await volume('data-01')).toEqual(before);
    });

    it('rejects shrinking a volume EBS holds, naming the field, and writes nothing', async () => {
      await createdInEbs({ sizeGiB: 20, volumeType: 'gp3', iops: 4000, throughput: 125 });
      const before = await volume('data-01');
      const writes = store.writes;
      const problem = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 10 }));
      expect(problem.status).toBe(400);
      expect(problem.errors).toEqual([{ path: 'sizeGiB', message: 'EBS volumes can only grow: 20 GiB cannot become 10 GiB' }]);
      expect(store.writes).toBe(writes);
      expect(await volume('data-01')).toEqual(before);
    });

    it('judges a change against the volume as EC2 reports it, as the watcher does: grown outside to 50 GiB, 40 is a shrink', async () => {
      await createdInEbs({ sizeGiB: 50, volumeType: 'gp3', iops: 4000, throughput: 125 });
      const writes = store.writes;
      const shrink = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }));
      expect(shrink.errors).toEqual([{ path: 'sizeGiB', message: 'EBS volumes can only grow: 50 GiB cannot become 40 GiB' }]);
      // A type change alone would leave the spec asking for 20 GiB of a 50 GiB volume: a modification
      // is made with the whole spec, so it is refused, saying the issue was there before it.
      const typeOnly = await problemOf(() => service.patchVolume('data-01', { volumeType: 'io2', iops: 4000 }));
      expect(typeOnly.status).toBe(400);
      expect(typeOnly.errors).toEqual([
        {
          path: 'sizeGiB',
          message: 'EBS volumes can only grow: 50 GiB cannot become 20 GiB (so before this change, which leaves sizeGiB as it is: a size, type, IOPS or throughput change is made only with a spec EBS can make as a whole)',
        },
      ]);
      expect(store.writes).toBe(writes);
      expect((await service.patchVolume('data-01', { sizeGiB: 60 })).spec.sizeGiB).toBe(60);
    });

    it('judges a size against the size a modification under way takes the volume to, not the one EC2 still reports', async () => {
      await createdInEbs({ sizeGiB: 20, volumeType: 'gp3', iops: 4000, throughput: 125 });
      await service.patchVolume('data-01', { sizeGiB: 40 });
      // The executor sent ModifyVolume for 40 GiB: EC2 reports 20 GiB until it is done.
      await store.update<VolumeRecord>(volumeKey('data-01'), { status: { state: 'modifying', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' } });
      const writes = store.writes;
      const shrink = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 30 }));
      expect(shrink.status).toBe(400);
      expect(shrink.errors).toEqual([
        { path: 'sizeGiB', message: 'EBS volumes can only grow: 40 GiB cannot become 30 GiB (a modification is under way, the spec asking for 40 GiB, and EC2 reports 20 GiB until it is done)' },
      ]);
      expect(store.writes).toBe(writes);
      expect((await volume('data-01'))?.spec.sizeGiB).toBe(40);
      // Tags, performance and growing on still change.
      expect((await service.patchVolume('data-01', { tags: { team: 'a' } })).generation).toBe(3);
      expect((await service.patchVolume('data-01', { sizeGiB: 50, iops: 5000 })).spec).toMatchObject({ sizeGiB: 50, iops: 5000 });
      // A ModifyVolume sent whose answer is not recorded counts the same.
      await store.update<VolumeRecord>(volumeKey('data-01'), {
        status: { state: 'available', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
        modificationSentAt: '2026-01-01T00:00:00.000Z',
      });
      expect((await problemOf(() => service.patchVolume('data-01', { sizeGiB: 45 }))).errors.map((e) => e.path)).toEqual(['sizeGiB']);
    });

    it('drops the refusal of the spec it changes from the status, in the same write: the system judges the new spec, which may take minutes in line for EC2', async () => {
      await createdInEbs({ sizeGiB: 50, volumeType: 'gp3', iops: 4000, throughput: 125 });
      // The system refused the spec's 20 GiB of a volume grown outside to 50 GiB.
      const refused = { state: 'available', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z', code: 'InvalidSpecChange', message: 'EBS volumes can only grow: 50 GiB cannot become 20 GiB' } as const;
      await store.update<VolumeRecord>(volumeKey('data-01'), { status: refused });
      clock.advance(60_000);
      const grown = await service.patchVolume('data-01', { sizeGiB: 60 });
      expect(grown.status).toEqual({ state: 'available', attempts: 0, updatedAt: '2026-01-01T00:01:00.000Z' });
      expect((await volume('data-01'))?.status).toEqual(grown.status);
      // Any other word of the system's stands: a wait for EC2's limit on modifications holds for the new spec too.
      const cooling = {
        state: 'available',
        attempts: 0,
        updatedAt: '2026-01-01T00:01:00.000Z',
        code: 'VolumeModificationRateExceeded',
        message: 'EC2 allows 4 modifications per volume in any 24 hours; trying again at 2026-01-01T05:00:00.000Z',
        nextAttemptAt: '2026-01-01T05:00:00.000Z',
      } as const;
      await store.update<VolumeRecord>(volumeKey('data-01'), { status: cooling });
      expect((await service.patchVolume('data-01', { sizeGiB: 70 })).status).toEqual(cooling);
    });

    it('takes a tag change of a volume grown outside, judged on its tags alone: tags may change at any time', async () => {
      await createdInEbs({ sizeGiB: 40, volumeType: 'gp3', iops: 4000, throughput: 125, tags: { team: 'a' } }, { ...GP3, iops: 4000, tags: { team: 'a' } });
      await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, iops: 4000, tags: { team: 'a' } } });
      const details = await service.patchVolume('data-01', { tags: { a: 'b' } });
      expect(details.spec).toEqual({ ...GP3, iops: 4000, tags: { a: 'b' } });
      expect(details.generation).toBe(2);
      // Its tags are still judged.
      const bad = await problemOf(() => service.patchVolume('data-01', { tags: { 'aws:x': 'b' } }));
      expect(bad.errors).toEqual([{ path: 'tags["aws:x"]', message: 'tag keys starting with "aws:" are reserved' }]);
      // A change that makes the size worse names it as it is.
      const shrink = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 30, tags: { a: 'c' } }));
      expect(shrink.errors).toEqual([{ path: 'sizeGiB', message: 'EBS volumes can only grow: 40 GiB cannot become 30 GiB' }]);
    });

    it('judges a patch by what it changes, not by what it sends: the whole spec sent back with new tags is a tag change', async () => {
      await createdInEbs({ sizeGiB: 40, volumeType: 'gp3', iops: 4000, throughput: 125, tags: { team: 'a' } }, { ...GP3, iops: 4000, tags: { team: 'a' } });
      await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, iops: 4000, tags: { team: 'a' } } });
      // As read (20 GiB, below the 40 EC2 reports after a grow outside), tags changed, the rest sent as it is.
      const details = await service.patchVolume('data-01', { ...GP3, iops: 4000, tags: { team: 'b' } });
      expect(details.spec).toEqual({ ...GP3, iops: 4000, tags: { team: 'b' } });
      expect(details.generation).toBe(2);
      // With a change of another field, the size sent as it was is named as an issue from before this change.
      const grown = await problemOf(() => service.patchVolume('data-01', { ...GP3, iops: 5000 }));
      expect(grown.errors).toEqual([
        {
          path: 'sizeGiB',
          message: 'EBS volumes can only grow: 40 GiB cannot become 20 GiB (so before this change, which leaves sizeGiB as it is: a size, type, IOPS or throughput change is made only with a spec EBS can make as a whole)',
        },
      ]);
    });

    it('lets a volume not yet created shrink: nothing exists in EBS to shrink', async () => {
      const details = await service.patchVolume('data-01', { sizeGiB: 10 });
      expect(details.spec.sizeGiB).toBe(10);
      expect(details.generation).toBe(2);
    });

    it('changes the fields fixed at creation while nothing is created, e.g. after EC2 refused the AZ; one placement replaces the other', async () => {
      // EC2 refused the create: the executor forgot the request, and the volume rests in error.
      await store.update<VolumeRecord>(volumeKey('data-01'), {
        status: { state: 'error', code: 'InvalidZone.NotFound', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' },
      });
      const moved = await service.patchVolume('data-01', { availabilityZone: 'us-east-1b', snapshotId: 'snap-0123456789abcdef0' });
      expect(moved.spec).toEqual({ ...GP3, iops: 4000, availabilityZone: 'us-east-1b', snapshotId: 'snap-0123456789abcdef0' });
      expect(moved.generation).toBe(2);
      const near = await service.patchVolume('data-01', { placementInstanceId: INSTANCE_A, snapshotId: null, encrypted: true, kmsKeyId: 'alias/ebs' });
      expect(near.spec).toEqual({ sizeGiB: 20, volumeType: 'gp3', iops: 4000, placementInstanceId: INSTANCE_A, encrypted: true, kmsKeyId: 'alias/ebs' });
      expect(near.generation).toBe(3);
      // No placement at all is refused, naming the field.
      const unplaced = await problemOf(() => service.patchVolume('data-01', { placementInstanceId: null }));
      expect(unplaced.status).toBe(400);
      expect(unplaced.errors.map((e) => e.path)).toEqual(['availabilityZone']);
    });

    it('refuses a change of a field fixed at creation once CreateVolume is asked for, saying why, and writes nothing', async () => {
      await store.update<VolumeRecord>(volumeKey('data-01'), {
        createRequest: { clientToken: 'ebsp-data-01-g1', availabilityZone: 'us-east-1a', spec: { ...GP3, iops: 4000 } },
        status: { state: 'creating', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
      });
      let writes = store.writes;
      const creating = await problemOf(() => service.patchVolume('data-01', { availabilityZone: 'us-east-1b' }));
      expect(creating.status).toBe(400);
      expect(creating.detail).toBe(
        'the change to volume data-01 is not allowed: availabilityZone: is fixed when the volume is created: CreateVolume was asked for it already, so delete the volume and create another to change it',
      );
      expect(creating.errors).toEqual([
        { path: 'availabilityZone', message: 'is fixed when the volume is created: CreateVolume was asked for it already, so delete the volume and create another to change it' },
      ]);
      expect(store.writes).toBe(writes);
      await createdInEbs({ sizeGiB: 20, volumeType: 'gp3', iops: 4000, throughput: 125 });
      writes = store.writes;
      const created = await problemOf(() => service.patchVolume('data-01', { encrypted: true }));
      expect(created.errors).toEqual([
        { path: 'encrypted', message: 'is fixed when the volume is created: EC2 created it as vol-0123456789abcdef0, so delete the volume and create another to change it' },
      ]);
      expect(store.writes).toBe(writes);
      // The same value as created is no change.
      expect((await service.patchVolume('data-01', { availabilityZone: 'us-east-1a' })).generation).toBe(1);
      // Cleared, it is fixed too: not "required unless placementInstanceId names an instance", which would be refused as well.
      const cleared = await problemOf(() => service.patchVolume('data-01', { availabilityZone: null }));
      expect(cleared.errors).toEqual([
        { path: 'availabilityZone', message: 'is fixed when the volume is created: EC2 created it as vol-0123456789abcdef0, so delete the volume and create another to change it' },
      ]);
      expect(store.writes).toBe(writes);
    });

    it('judges the change again when the volume was created between its read and its write', async () => {
      // The executor records the creation between the service's read and its write.
      raceFirstWrite(() => createdInEbs({ sizeGiB: 20, volumeType: 'gp3', iops: 4000, throughput: 125 }));
      const problem = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 10 }));
      expect(problem.errors.map((e) => e.path)).toEqual(['sizeGiB']);
      expect((await volume('data-01'))?.spec.sizeGiB).toBe(20);
    });

    it('rejects a change that makes the spec invalid as a whole', async () => {
      const writes = store.writes;
      // gp2 takes no IOPS setting; the existing iops would survive the type change.
      const problem = await problemOf(() => service.patchVolume('data-01', { volumeType: 'gp2' }));
      expect(problem.status).toBe(400);
      expect(problem.errors.map((e) => e.path)).toContain('iops');
      expect(store.writes).toBe(writes);
    });

    it('refuses clearing the IOPS of an io1 or io2 volume, which EBS requires, and writes nothing', async () => {
      await service.createVolume({ volumeId: 'fast', spec: { ...GP3, volumeType: 'io2', iops: 1000 } });
      const writes = store.writes;
      const problem = await problemOf(() => service.patchVolume('fast', { iops: null }));
      expect(problem.status).toBe(400);
      expect(problem.errors).toEqual([{ path: 'iops', message: 'io2 volumes require an IOPS setting (100–256000)' }]);
      expect(store.writes).toBe(writes);
    });

    it('does not bump the generation when nothing changes', async () => {
      const details = await service.patchVolume('data-01', { sizeGiB: 20 });
      expect(details.generation).toBe(1);
    });

    it('takes `false` for encrypted or multiAttach as the create does, the same as leaving it out: no change, no retry of a volume in error', async () => {
      const failed = { state: 'error', code: 'InternalError', attempts: 3, updatedAt: '2026-01-01T00:00:00.000Z' } as const;
      await store.update<VolumeRecord>(volumeKey('data-01'), { status: failed });
      const before = await volume('data-01');
      const writes = store.writes;
      for (const patch of [{ encrypted: false }, { multiAttach: false }, { encrypted: false, multiAttach: false, sizeGiB: 20 }]) {
        const details = await service.patchVolume('data-01', patch);
        expect(details.generation).toBe(1);
        expect(details.status).toEqual(failed);
      }
      expect(store.writes).toBe(writes);
      expect(await volume('data-01')).toEqual(before);
      // And the other way round: clearing a `false` spelt out is no change either.
      await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, iops: 4000, encrypted: false } });
      expect((await service.patchVolume('data-01', { encrypted: null })).generation).toBe(1);
    });

    it('is 409 on a dying volume and 404 on a missing one', async () => {
      await service.deleteVolume('data-01');
      expect((await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }))).status).toBe(409);
      expect((await problemOf(() => service.patchVolume('nope', { sizeGiB: 40 }))).status).toBe(404);
    });

    it('refuses turning Multi-Attach off while the volume has attachments to more than one instance, and writes nothing', async () => {
      await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
      await service.putAttachment('shared', INSTANCE_A, {});
      await service.putAttachment('shared', INSTANCE_B, {});
      const writes = store.writes;
      for (const multiAttach of [false, null]) {
        const problem = await problemOf(() => service.patchVolume('shared', { multiAttach }));
        expect(problem.status).toBe(409);
        expect(problem.kind).toBe('conflict');
        expect(problem.detail).toBe(
          `volume shared has attachments to 2 instances (${INSTANCE_A}, ${INSTANCE_B}); a volume that is not multi-attach is attached to one: detach it from all but one first`,
        );
        expect(problem.errors).toEqual([{ path: 'multiAttach', message: `the volume has attachments to ${INSTANCE_A}, ${INSTANCE_B}; detach it from all but one first` }]);
      }
      expect(store.writes).toBe(writes);
      expect((await volume('shared'))?.spec.multiAttach).toBe(true);

      // One being detached stands in the way no more.
      await service.deleteAttachment('shared', INSTANCE_B);
      expect((await service.patchVolume('shared', { multiAttach: false })).spec.multiAttach).toBe(false);
    });

    it('refuses turning Multi-Attach off beside an attachment record to another instance that is not valid, as an attach beside it is refused', async () => {
      await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
      await service.putAttachment('shared', INSTANCE_A, {});
      // Written straight into the table: nothing knows whether it is attached.
      store.putRaw({ kind: 'attachment', volumeId: 'shared', instanceId: INSTANCE_B, life: 'sleeping', generation: 1 });
      const writes = store.writes;
      const problem = await problemOf(() => service.patchVolume('shared', { multiAttach: false }));
      expect([problem.status, problem.kind]).toEqual([409, 'invalid-record']);
      expect(problem.detail).toMatch(
        new RegExp(`^volume shared has attachments to 2 instances \\(${INSTANCE_A}, ${INSTANCE_B}\\); a volume that is not multi-attach is attached to one: detach it from all but one first, and the record of the attachment of shared to ${INSTANCE_B} in the table is not valid`),
      );
      expect(store.writes).toBe(writes);
      expect((await volume('shared'))?.spec.multiAttach).toBe(true);

      // Alone, it stands in the way of nothing.
      await service.deleteAttachment('shared', INSTANCE_A);
      expect((await service.patchVolume('shared', { multiAttach: false })).spec.multiAttach).toBe(false);
    });

    it('re-reads and re-validates after a concurrent client change instead of overwriting it', async () => {
      // Another client grows the volume between the service's read and its write.
      raceFirstWrite((update) => update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, iops: 4000, sizeGiB: 30 }, generation: 2 }));
      const details = await service.patchVolume('data-01', { throughput: 250 });
      expect(details.spec).toEqual({ ...GP3, iops: 4000, sizeGiB: 30, throughput: 250 });
      expect(details.generation).toBe(3);
    });
  });

  describe('retryVolume', () => {
    beforeEach(async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    });
    const fail = () =>
      store.update<VolumeRecord>(volumeKey('data-01'), {
        status: { state: 'error', code: 'InternalError', message: 'boom', attempts: 5, updatedAt: '2026-01-01T00:00:00.000Z' },
      });

    it('bumps the generation of a volume in error and puts it back to pending at once, leaving the spec alone', async () => {
      await fail();
      const details = await service.retryVolume('data-01');
      expect(details).toMatchObject({ generation: 2, spec: GP3, status: { state: 'pending', attempts: 0, message: 'retry requested' } });
      expect(details.status.code).toBeUndefined();
      // The retry made, as the watcher would have: a late delivery of the bump retries nothing more.
      expect(await volume('data-01')).toMatchObject({ generation: 2, retriedGeneration: 2, status: { state: 'pending', attempts: 0 } });
    });

    it('writes nothing over a status the system wrote between its read and its write: read again, no longer in error, 409', async () => {
      await fail();
      raceFirstWrite((update) => update<VolumeRecord>(volumeKey('data-01'), { ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'available', attempts: 0, updatedAt: '2026-01-01T00:00:01.000Z' } }));
      const problem = await problemOf(() => service.retryVolume('data-01'));
      expect(problem.status).toBe(409);
      expect(problem.detail).toContain('is available, not in error');
      expect(await volume('data-01')).toMatchObject({ generation: 1, status: { state: 'available' } });
    });

    it('is 409 when there is nothing to retry or the volume is dying, 404 when missing, and writes nothing then', async () => {
      const writes = store.writes;
      const pending = await problemOf(() => service.retryVolume('data-01'));
      expect(pending.status).toBe(409);
      expect(pending.detail).toContain('is pending, not in error');
      expect(store.writes).toBe(writes);
      await fail();
      await service.deleteVolume('data-01');
      const dying = store.writes;
      expect((await problemOf(() => service.retryVolume('data-01'))).status).toBe(409);
      expect((await problemOf(() => service.retryVolume('nope'))).status).toBe(404);
      expect(store.writes).toBe(dying);
    });

    it('is 409 when the volume is marked dying between its read and its write, and leaves the generation as it was', async () => {
      await fail();
      raceFirstWrite((update) => update(volumeKey('data-01'), { life: 'dying' }));
      const dying = await problemOf(() => service.retryVolume('data-01'));
      expect(dying.status).toBe(409);
      expect(dying.detail).toBe('volume data-01 is being deleted');
      expect(await volume('data-01')).toMatchObject({ life: 'dying', generation: 1 });
    });
  });

  describe('retryAttachment', () => {
    beforeEach(async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      await service.putAttachment('data-01', INSTANCE_A, {});
    });
    const fail = () =>
      store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), {
        status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', message: 'wrong AZ', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' },
      });

    it('new attachments start at generation 1', async () => {
      expect((await attachment('data-01', INSTANCE_A))?.generation).toBe(1);
    });

    it('bumps the generation of an attachment in error and puts it back to pending at once; asked again before it fails again, 409', async () => {
      await fail();
      const view = await service.retryAttachment('data-01', INSTANCE_A);
      expect(view).toMatchObject({ instanceId: INSTANCE_A, generation: 2, life: 'alive', status: { state: 'pending', attempts: 0, message: 'retry requested' } });
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ generation: 2, retriedGeneration: 2, status: { state: 'pending' } });
      expect((await problemOf(() => service.retryAttachment('data-01', INSTANCE_A))).status).toBe(409);
      await fail();
      expect((await service.retryAttachment('data-01', INSTANCE_A)).generation).toBe(3);
    });

    it('retries an attachment written without a generation as if it were 1', async () => {
      const { generation: _dropped, ...older } = (await attachment('data-01', INSTANCE_A))!;
      store.putRaw({ ...older, status: { state: 'error', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' } });
      expect((await service.retryAttachment('data-01', INSTANCE_A)).generation).toBe(2);
      expect((await attachment('data-01', INSTANCE_A))?.generation).toBe(2);
    });

    it('is 409 when not in error or detaching, 404 when absent, and writes nothing then', async () => {
      const writes = store.writes;
      const pending = await problemOf(() => service.retryAttachment('data-01', INSTANCE_A));
      expect(pending.status).toBe(409);
      expect(pending.detail).toContain('is pending, not in error');
      expect(store.writes).toBe(writes);
      await fail();
      await service.deleteAttachment('data-01', INSTANCE_A);
      const dying = await problemOf(() => service.retryAttachment('data-01', INSTANCE_A));
      expect(dying.status).toBe(409);
      expect(dying.detail).toContain('being detached');
      expect((await problemOf(() => service.retryAttachment('data-01', INSTANCE_B))).status).toBe(404);
      expect((await problemOf(() => service.retryAttachment('nope', INSTANCE_A))).status).toBe(404);
      expect((await attachment('data-01', INSTANCE_A))?.generation).toBe(1);
    });

    it('is 409 while its volume record is missing (removed from the table), naming what to do, and writes nothing; once the volume is created again it retries', async () => {
      await fail();
      await store.remove(volumeKey('data-01'));
      const writes = store.writes;
      const missing = await problemOf(() => service.retryAttachment('data-01', INSTANCE_A));
      expect(missing.status).toBe(409);
      expect(missing.detail).toBe(
        `attachment of data-01 to ${INSTANCE_A} cannot be retried: volume record data-01 does not exist; create the volume again first, or delete the attachment`,
      );
      expect(store.writes).toBe(writes);
      expect((await attachment('data-01', INSTANCE_A))?.generation).toBe(1);
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      expect((await service.retryAttachment('data-01', INSTANCE_A)).generation).toBe(2);
    });

    it('is 409 invalid-record while its volume record is not valid (the system does nothing with it), naming what to do, and writes nothing', async () => {
      await fail();
      const good = (await volume('data-01'))!;
      store.putRaw({ ...good, generation: 'two' });
      const writes = store.writes;
      const refused = await problemOf(() => service.retryAttachment('data-01', INSTANCE_A));
      expect([refused.status, refused.kind]).toEqual([409, 'invalid-record']);
      expect(refused.detail).toBe(
        `attachment of data-01 to ${INSTANCE_A} cannot be retried: it attaches volume data-01, and the record of volume data-01 in the table is not valid, ` +
          'so nothing is done with it: record.generation: Invalid input: expected number, received string. Correct it in the table, or remove it there',
      );
      expect(refused.errors).toEqual([{ path: 'record.generation', message: 'Invalid input: expected number, received string' }]);
      expect(store.writes).toBe(writes);
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ life: 'alive', generation: 1, status: { state: 'error' } });
      // Put right in the table, the retry goes ahead.
      store.putRaw(good);
      expect((await service.retryAttachment('data-01', INSTANCE_A)).generation).toBe(2);
    });

    it('is 409 while its volume is being deleted (the volume\'s delete detaches and removes it), and writes nothing', async () => {
      await fail();
      await service.deleteVolume('data-01');
      const writes = store.writes;
      const dying = await problemOf(() => service.retryAttachment('data-01', INSTANCE_A));
      expect([dying.status, dying.kind]).toEqual([409, 'conflict']);
      expect(dying.detail).toBe(`attachment of data-01 to ${INSTANCE_A} cannot be retried: volume data-01 is being deleted, and its attachments are detached and removed with it`);
      expect(store.writes).toBe(writes);
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ life: 'alive', generation: 1, status: { state: 'error' } });
    });

    it('is 409 when the attachment is marked dying between its read and its write, and leaves the generation as it was', async () => {
      await fail();
      raceFirstWrite((update) => update(attachmentKey('data-01', INSTANCE_A), { life: 'dying' }));
      const dying = await problemOf(() => service.retryAttachment('data-01', INSTANCE_A));
      expect(dying.status).toBe(409);
      expect(dying.detail).toBe(`attachment of data-01 to ${INSTANCE_A} is being detached`);
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ life: 'dying', generation: 1 });
    });
  });

  describe('deleteVolume', () => {
    it('marks the volume dying, once, and repeats harmlessly', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      const first = await service.deleteVolume('data-01');
      expect(first.life).toBe('dying');
      const writes = store.writes;
      const second = await service.deleteVolume('data-01');
      expect(second.life).toBe('dying');
      expect(store.writes).toBe(writes);
      expect((await volume('data-01'))?.generation).toBe(1);
    });

    it('is 404 for an unknown volume', async () => {
      expect((await problemOf(() => service.deleteVolume('nope'))).status).toBe(404);
    });

    it('answers as accepted, with the volume as marked, when the system removes the record between the mark and the read of the answer', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      // The system's delete finishes the moment the volume is marked dying: the record is removed.
      const stop = store.onChange((change) => {
        if (change.eventName === 'MODIFY' && change.newRecord?.life === 'dying') void store.remove(change.key);
      });
      const answer = await service.deleteVolume('data-01');
      stop();
      expect(answer).toMatchObject({ volumeId: 'data-01', life: 'dying', generation: 1, attachments: [] });
      expect(await volume('data-01')).toBeUndefined();
      expect((await problemOf(() => service.deleteVolume('data-01'))).status).toBe(404);
    });
  });

  describe('putAttachment', () => {
    beforeEach(async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    });

    it('is 409 for an attachment left by a removed volume record under the id (it never attaches the new record\'s volume), naming what to do, and writes nothing', async () => {
      await service.putAttachment('data-01', INSTANCE_A, {});
      const updatedAt = new Date(clock.now()).toISOString();
      // Attached as /dev/sdf to the first record's volume; the record was removed, the attachment marked so, and a record under the id written again.
      await store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), {
        device: '/dev/sdf',
        status: { state: 'error', code: 'VolumeRecordRemoved', message: 'the volume record was removed', attempts: 0, updatedAt },
      });
      await store.remove(volumeKey('data-01'));
      clock.advance(1000);
      // A create asking for it is refused before the volume is written.
      const asked = await problemOf(() => service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } }));
      expect([asked.status, asked.detail]).toEqual([409, expect.stringContaining('belongs to a removed volume record data-01')]);
      expect(await volume('data-01')).toBeUndefined();
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      const writes = store.writes;
      const lost = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, {}));
      expect([lost.status, lost.kind]).toEqual([409, 'conflict']);
      expect(lost.detail).toBe(
        `the attachment of data-01 to ${INSTANCE_A} belongs to a removed volume record data-01 and never attaches the volume of the current one: ` +
          "it may still hold the removed record's EC2 volume as /dev/sdf; delete this attachment (the volumes tagged with that id are detached from the instance), then attach the volume again",
      );
      expect(store.writes).toBe(writes);
      // Deleted and asked for again, it attaches the current record's volume.
      await service.deleteAttachment('data-01', INSTANCE_A);
      await store.remove(attachmentKey('data-01', INSTANCE_A));
      expect((await service.putAttachment('data-01', INSTANCE_A, {})).created).toBe(true);
    });

    it('a volume that can take the attachment now gives it no waiting reason', async () => {
      await store.update<VolumeRecord>(volumeKey('data-01'), { status: { state: 'available', attempts: 0, updatedAt: new Date(clock.now()).toISOString() }, ebsVolumeId: 'vol-0123456789abcdef0' });
      await service.putAttachment('data-01', INSTANCE_A, {});
      expect((await attachment('data-01', INSTANCE_A))?.status).toEqual({ state: 'pending', attempts: 0, updatedAt: expect.any(String) });
    });

    it('creates a pending attachment and repeats idempotently', async () => {
      const first = await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' });
      expect(first.created).toBe(true);
      expect(first.value).toMatchObject({ instanceId: INSTANCE_A, requestedDevice: '/dev/sdg', life: 'alive' });
      const writes = store.writes;
      const second = await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' });
      expect(second.created).toBe(false);
      const third = await service.putAttachment('data-01', INSTANCE_A, {});
      expect(third.created).toBe(false);
      expect(store.writes).toBe(writes);
    });

    it('refuses a device another volume\'s attachment holds on the instance, asked for or given, and writes nothing', async () => {
      await service.createVolume({ volumeId: 'data-02', spec: GP3 });
      await service.createVolume({ volumeId: 'data-03', spec: GP3 });
      await service.putAttachment('data-02', INSTANCE_A, { device: '/dev/sdg' });
      await service.putAttachment('data-03', INSTANCE_A, {});
      await store.update<AttachmentRecord>(attachmentKey('data-03', INSTANCE_A), { device: '/dev/sdh' });
      const writes = store.writes;
      for (const [device, holder] of [['/dev/sdg', 'data-02'], ['/dev/sdh', 'data-03']] as const) {
        const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, { device }));
        expect(problem.status).toBe(409);
        expect(problem.errors).toEqual([{ path: 'device', message: `is held by volume ${holder} on ${INSTANCE_A}` }]);
      }
      expect(store.writes).toBe(writes);
      expect(await attachment('data-01', INSTANCE_A)).toBeUndefined();
      // Not refused once that attachment is being removed: the attach retries until the detach frees the name.
      await store.update<AttachmentRecord>(attachmentKey('data-02', INSTANCE_A), { life: 'dying' });
      expect((await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' })).created).toBe(true);
    });

    it('refuses a device that names the same slot as one another volume\'s attachment holds (/dev/xvdg for /dev/sdg), saying which name holds it', async () => {
      await service.createVolume({ volumeId: 'data-02', spec: GP3 });
      await service.putAttachment('data-02', INSTANCE_A, { device: '/dev/sdg' });
      const writes = store.writes;
      for (const device of ['/dev/xvdg', 'xvdg', 'sdg']) {
        const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, { device }));
        expect(problem.status).toBe(409);
        expect(problem.detail).toBe(`device ${device} on ${INSTANCE_A} is held by volume data-02 as /dev/sdg (pending); choose another device or leave it out`);
        expect(problem.errors).toEqual([{ path: 'device', message: `is held by volume data-02 as /dev/sdg on ${INSTANCE_A}` }]);
      }
      expect(store.writes).toBe(writes);
      // Another slot is free.
      expect((await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/xvdh' })).created).toBe(true);
    });

    it('rejects another device for an existing attachment, saying which it has and its state', async () => {
      await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' });
      const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdh' }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toBe(`the attachment of data-01 to ${INSTANCE_A} (pending) was requested as /dev/sdg; it cannot change to /dev/sdh: detach it first`);
      expect(problem.errors).toEqual([{ path: 'device', message: 'differs from /dev/sdg, the device requested before' }]);
    });

    it('answers a device the system allocated as a repeat, writing nothing, and refuses another one', async () => {
      await service.putAttachment('data-01', INSTANCE_A, {});
      await store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), {
        status: { state: 'attached', attempts: 0, updatedAt: new Date(clock.now()).toISOString() },
        device: '/dev/sdf',
      });
      const before = await attachment('data-01', INSTANCE_A);
      const writes = store.writes;
      const again = await service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdf' });
      expect(again).toEqual({ created: false, value: expect.objectContaining({ device: '/dev/sdf', status: expect.objectContaining({ state: 'attached' }) }) });
      expect(store.writes).toBe(writes);
      expect(await attachment('data-01', INSTANCE_A)).toEqual(before);

      const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toBe(`the attachment of data-01 to ${INSTANCE_A} (attached) has device /dev/sdf, chosen by the system; it cannot change to /dev/sdg: detach it first`);
      expect(problem.errors).toEqual([{ path: 'device', message: 'differs from /dev/sdf, the device the system chose' }]);
      expect(store.writes).toBe(writes);
    });

    it('refuses a device for a pending attachment asked for without one, saying the system chooses it', async () => {
      await service.putAttachment('data-01', INSTANCE_A, {});
      const writes = store.writes;
      const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, { device: '/dev/sdg' }));
      expect(problem.status).toBe(409);
      expect(problem.detail).toBe(`the attachment of data-01 to ${INSTANCE_A} (pending) was requested without a device, so the system chooses one; it cannot change to /dev/sdg: detach it first`);
      expect(store.writes).toBe(writes);
    });

    it('is 404 without the volume and 409 on a dying volume', async () => {
      expect((await problemOf(() => service.putAttachment('nope', INSTANCE_A, {}))).status).toBe(404);
      await service.deleteVolume('data-01');
      expect((await problemOf(() => service.putAttachment('data-01', INSTANCE_A, {}))).status).toBe(409);
      expect(await attachment('data-01', INSTANCE_A)).toBeUndefined();
    });

    it('refuses a second instance unless the volume is multi-attach', async () => {
      await service.putAttachment('data-01', INSTANCE_A, {});
      const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_B, {}));
      expect(problem.status).toBe(409);
      expect(problem.detail).toContain(INSTANCE_A);
      expect(await attachment('data-01', INSTANCE_B)).toBeUndefined();

      await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
      await service.putAttachment('shared', INSTANCE_A, {});
      expect((await service.putAttachment('shared', INSTANCE_B, {})).created).toBe(true);
    });

    it('refuses a Multi-Attach volume a 17th instance, the most EBS attaches it to being 16, until one of them is detached', async () => {
      await service.createVolume({ volumeId: 'shared', spec: { sizeGiB: 100, volumeType: 'io2', iops: 1000, multiAttach: true, availabilityZone: 'us-east-1a' } });
      const instances = Array.from({ length: 17 }, (_, i) => `i-${(i + 1).toString(16).padStart(17, '0')}`);
      for (const instanceId of instances.slice(0, 16)) expect((await service.putAttachment('shared', instanceId, {})).created).toBe(true);
      const problem = await problemOf(() => service.putAttachment('shared', instances[16]!, {}));
      expect(problem.status).toBe(409);
      expect(problem.detail).toBe('volume shared already has attachments to 16 instances, the most EBS attaches a Multi-Attach volume to; detach it from one first');
      expect(await attachment('shared', instances[16]!)).toBeUndefined();
      // One already asked for is as it stands.
      expect((await service.putAttachment('shared', instances[0]!, {})).created).toBe(false);

      await service.deleteAttachment('shared', instances[0]!);
      expect((await service.putAttachment('shared', instances[16]!, {})).created).toBe(true);
    });

    it('is 409 while the same attachment is being detached', async () => {
      await service.putAttachment('data-01', INSTANCE_A, {});
      await service.deleteAttachment('data-01', INSTANCE_A);
      const problem = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, {}));
      expect(problem.status).toBe(409);
      expect(problem.detail).toContain('being detached');
    });
  });

  describe('deleteAttachment', () => {
    it('marks the attachment dying, repeats harmlessly, and is 404 when absent', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      expect((await service.deleteAttachment('data-01', INSTANCE_A)).life).toBe('dying');
      const writes = store.writes;
      expect((await service.deleteAttachment('data-01', INSTANCE_A)).life).toBe('dying');
      expect(store.writes).toBe(writes);
      expect((await volume('data-01'))?.life).toBe('alive');
      expect((await problemOf(() => service.deleteAttachment('data-01', INSTANCE_B))).status).toBe(404);
    });

    it('force on a live attachment marks it dying and forced in one write', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      const writes = store.writes;
      expect(await service.deleteAttachment('data-01', INSTANCE_A, undefined, true)).toMatchObject({ life: 'dying', forceDetach: true });
      expect(store.writes).toBe(writes + 1);
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ life: 'dying', forceDetach: true });
    });

    it('force on an attachment already dying (a detach under way) sets it, once; a plain delete after it leaves it', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      await service.deleteAttachment('data-01', INSTANCE_A);
      await store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), { status: { state: 'detaching', attempts: 3, updatedAt: new Date(clock.now()).toISOString() } });
      expect(await service.deleteAttachment('data-01', INSTANCE_A, undefined, true)).toMatchObject({ life: 'dying', forceDetach: true, status: { state: 'detaching' } });
      const writes = store.writes;
      expect((await service.deleteAttachment('data-01', INSTANCE_A, undefined, true)).forceDetach).toBe(true);
      expect((await service.deleteAttachment('data-01', INSTANCE_A)).forceDetach).toBe(true);
      expect(store.writes).toBe(writes);
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ life: 'dying', forceDetach: true, status: { state: 'detaching', attempts: 3 } });
    });

    it('a plain delete of a live attachment is not forced, even when a force was written straight into the table', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      await store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), { forceDetach: true });
      const answer = await service.deleteAttachment('data-01', INSTANCE_A);
      expect(answer.life).toBe('dying');
      expect(answer).not.toHaveProperty('forceDetach');
      expect(await attachment('data-01', INSTANCE_A)).not.toHaveProperty('forceDetach');
    });
  });

  describe('If-Match preconditions', () => {
    const ifMatch = parseIfMatch;
    /** The entity tag of data-01 (and its attachments: the clock stands still here) at generation `n`. */
    const T = (n: number) => entityTag({ generation: n, createdAt: new Date(clock.now()).toISOString() });
    const failVolume = () =>
      store.update<VolumeRecord>(volumeKey('data-01'), {
        status: { state: 'error', code: 'InternalError', message: 'boom', attempts: 5, updatedAt: '2026-01-01T00:00:00.000Z' },
      });
    beforeEach(async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      await service.patchVolume('data-01', { sizeGiB: 30 }); // generation 2
    });

    it('reads `*`, and lists of strong tags as sent; weak tags and anything else name none', () => {
      expect(parseIfMatch('*')).toMatchObject({ any: true });
      expect(parseIfMatch('"7.abc"').tags).toEqual(['"7.abc"']);
      expect(parseIfMatch(' "1" , "12"').tags).toEqual(['"1"', '"12"']);
      expect(parseIfMatch('"1", W/"2"').tags).toEqual(['"1"']);
      // Empty list elements are ignored (RFC 9110 §5.6.1.2); a comma inside an opaque tag does not split it.
      expect(parseIfMatch('"1",').tags).toEqual(['"1"']);
      expect(parseIfMatch(', "1" ,, "2"').tags).toEqual(['"1"', '"2"']);
      expect(parseIfMatch('"a,b", "3"').tags).toEqual(['"a,b"', '"3"']);
      for (const malformed of ['7', '"7', '', ' , ', '"1" "2"', '"1", 2']) {
        expect(parseIfMatch(malformed), malformed).toEqual({ header: malformed, any: false, tags: [], fault: 'malformed' });
      }
      expect(parseIfMatch('W/"7"')).toEqual({ header: 'W/"7"', any: false, tags: [], fault: 'weak' });
      expect(parseIfMatch('W/"7", W/"8"')).toMatchObject({ tags: [], fault: 'weak' });
    });

    it('tags a record with its generation and when it was created, so one created again under the same id has another tag', () => {
      expect(entityTag({ generation: 7, createdAt: '2026-01-01T00:00:00.000Z' })).toBe(`"7.${Date.parse('2026-01-01T00:00:00.000Z').toString(36)}"`);
      expect(entityTag({ generation: 7, createdAt: '2026-01-01T00:00:00.001Z' })).not.toBe(entityTag({ generation: 7, createdAt: '2026-01-01T00:00:00.000Z' }));
      // No generation (an attachment from before it had one): 1. A createdAt that is no time: the generation alone.
      expect(entityTag({ createdAt: '2026-01-01T00:00:00.000Z' })).toBe(entityTag({ generation: 1, createdAt: '2026-01-01T00:00:00.000Z' }));
      expect(entityTag({ generation: 3, createdAt: 'yesterday' })).toBe('"3"');
    });

    it('a tag kept from a volume deleted and created again under the same id is 412 on PATCH, DELETE and retry', async () => {
      const kept = T(1);
      await store.remove(volumeKey('data-01'));
      clock.advance(1000);
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      expect((await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(kept)))).status).toBe(412);
      expect((await problemOf(() => service.deleteVolume('data-01', ifMatch(kept)))).status).toBe(412);
      await failVolume();
      expect((await problemOf(() => service.retryVolume('data-01', ifMatch(kept)))).status).toBe(412);
      expect(await volume('data-01')).toMatchObject({ generation: 1, life: 'alive', spec: { sizeGiB: GP3.sizeGiB } });
    });

    it('a write If-Match allowed is refused by the store when the record was deleted and created again meanwhile at the same generation', async () => {
      raceFirstWrite(async (update) => {
        await store.remove(volumeKey('data-01'));
        clock.advance(1000);
        await service.createVolume({ volumeId: 'data-01', spec: GP3 });
        await update<VolumeRecord>(volumeKey('data-01'), { generation: 2 });
      });
      expect((await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(T(2))))).status).toBe(412);
      expect(await volume('data-01')).toMatchObject({ generation: 2, spec: { sizeGiB: GP3.sizeGiB } });
    });

    it('PATCH applies the change when If-Match names the current generation, or is `*`', async () => {
      expect((await service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(T(2)))).generation).toBe(3);
      expect((await service.patchVolume('data-01', { sizeGiB: 50 }, ifMatch(`${T(1)}, ${T(3)}`))).generation).toBe(4);
      const details = await service.patchVolume('data-01', { sizeGiB: 60 }, ifMatch('*'));
      expect(details).toMatchObject({ generation: 5, spec: { sizeGiB: 60 } });
    });

    it('PATCH is 412 saying what to fix, not to read the volume again, when If-Match is malformed or only weak', async () => {
      const before = await volume('data-01');
      const writes = store.writes;
      for (const header of ['garbage', T(2).slice(1, -1), '"2" x']) {
        const problem = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(header)));
        expect(problem.status, header).toBe(412);
        expect(problem.detail).toBe(`If-Match ${header} never matches: If-Match must be a list of quoted entity tags or *, such as ${T(2)}; nothing was changed`);
        expect(problem.detail).not.toContain('read it again');
        expect(problem.errors).toEqual([{ path: 'If-Match', message: `must be a list of quoted entity tags or *, such as ${T(2)}` }]);
        expect(problem.headers).toEqual({ ETag: T(2) });
      }
      // An empty header is named as such, not as nothing between two spaces.
      const empty = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(' ')));
      expect(empty.status).toBe(412);
      expect(empty.detail).toBe(`If-Match (empty) never matches: If-Match must be a list of quoted entity tags or *, such as ${T(2)}; nothing was changed`);
      const weak = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(`W/${T(2)}`)));
      expect(weak.status).toBe(412);
      expect(weak.detail).toContain('weak entity tags (W/) never match');
      expect(weak.errors).toEqual([{ path: 'If-Match', message: `weak entity tags (W/) never match; send the ETag as the API gave it, such as ${T(2)}` }]);
      // Of a record that does not exist, too.
      expect((await problemOf(() => service.patchVolume('nope', { sizeGiB: 40 }, ifMatch('garbage')))).status).toBe(404);
      expect((await problemOf(() => service.putAttachment('data-01', INSTANCE_A, {}, { ifMatch: ifMatch('garbage') }))).detail).toContain('must be a list of quoted entity tags');
      expect(store.writes).toBe(writes);
      expect(await volume('data-01')).toEqual(before);
    });

    it('PATCH is 412 naming the current generation, and changes nothing, when If-Match is stale', async () => {
      const before = await volume('data-01');
      const writes = store.writes;
      for (const header of [T(1), '"2"', '"two"', `W/${T(2)}, ${T(1)}`]) {
        const problem = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(header)));
        expect(problem.status, header).toBe(412);
        expect(problem.kind).toBe('precondition-failed');
        expect(problem.detail).toContain(`volume data-01 is at generation 2 (ETag ${T(2)})`);
        expect(problem.errors).toEqual([{ path: 'If-Match', message: `does not name the current record (ETag ${T(2)}): changed or created again since` }]);
        expect(problem.headers).toEqual({ ETag: T(2) });
      }
      expect(store.writes).toBe(writes);
      expect(await volume('data-01')).toEqual(before);
    });

    it('PATCH is 412 when another client changes the volume between the read and the write, keeping that change', async () => {
      raceFirstWrite((update) => update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, sizeGiB: 35 }, generation: 3 }));
      const problem = await problemOf(() => service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(T(2))));
      expect(problem.status).toBe(412);
      expect(problem.detail).toContain('generation 3');
      expect(await volume('data-01')).toMatchObject({ generation: 3, spec: { sizeGiB: 35 } });
    });

    it('PATCH writes conditionally on the generation If-Match names, so the store refuses a change it has not seen', async () => {
      const conditions: Array<WriteCondition | undefined> = [];
      const update = store.update.bind(store);
      store.update = async <R extends VolumeRecord | AttachmentRecord>(key: RecordKey, changes: RecordChanges<R>, condition?: WriteCondition) => {
        conditions.push(condition);
        return update<R>(key, changes, condition);
      };
      await service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(T(2)));
      await service.patchVolume('data-01', { sizeGiB: 50 });
      expect(conditions[0]).toMatchObject({ generation: 2, createdAt: new Date(clock.now()).toISOString(), life: 'alive' });
      expect(conditions[1]).not.toHaveProperty('generation');
    });

    it("PATCH still applies when only the system's status changed between the read and the write: that is not the client's to conflict with", async () => {
      raceFirstWrite((update) => update<VolumeRecord>(volumeKey('data-01'), { status: { state: 'creating', attempts: 1, updatedAt: '2026-01-01T00:00:01.000Z' } }));
      const details = await service.patchVolume('data-01', { sizeGiB: 40 }, ifMatch(T(2)));
      expect(details).toMatchObject({ generation: 3, spec: { sizeGiB: 40 }, status: { state: 'creating' } });
    });

    it('DELETE marks the volume dying only when If-Match holds; a race with a client change is 412', async () => {
      expect((await problemOf(() => service.deleteVolume('data-01', ifMatch(T(1))))).status).toBe(412);
      expect((await volume('data-01'))?.life).toBe('alive');
      raceFirstWrite((update) => update<VolumeRecord>(volumeKey('data-01'), { spec: { ...GP3, sizeGiB: 35 }, generation: 3 }));
      expect((await problemOf(() => service.deleteVolume('data-01', ifMatch(T(2))))).status).toBe(412);
      expect((await volume('data-01'))?.life).toBe('alive');
      expect((await service.deleteVolume('data-01', ifMatch(T(3)))).life).toBe('dying');
      // Deleting leaves the generation (and so the ETag) as it is; repeating it is harmless.
      expect((await service.deleteVolume('data-01', ifMatch(T(3)))).generation).toBe(3);
    });

    it('retry bumps the generation only when If-Match holds', async () => {
      await failVolume();
      const stale = await problemOf(() => service.retryVolume('data-01', ifMatch(T(1))));
      expect(stale.status).toBe(412);
      expect((await volume('data-01'))?.generation).toBe(2);
      expect((await service.retryVolume('data-01', ifMatch(T(2)))).generation).toBe(3);
    });

    it('attachments: PUT needs an existing attachment at the named generation; retry and DELETE check it too', async () => {
      const writes = store.writes;
      const absent = await problemOf(() => service.putAttachment('data-01', INSTANCE_A, {}, { ifMatch: ifMatch('*') }));
      expect(absent.status).toBe(412);
      expect(absent.detail).toContain('does not exist');
      expect(store.writes).toBe(writes);
      expect(await attachment('data-01', INSTANCE_A)).toBeUndefined();

      await service.putAttachment('data-01', INSTANCE_A, {});
      expect(await service.putAttachment('data-01', INSTANCE_A, {}, { ifMatch: ifMatch(T(1)) })).toMatchObject({ created: false });
      expect((await problemOf(() => service.putAttachment('data-01', INSTANCE_A, {}, { ifMatch: ifMatch(T(2)) }))).status).toBe(412);

      await store.update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), {
        status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', message: 'wrong AZ', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' },
      });
      expect((await problemOf(() => service.retryAttachment('data-01', INSTANCE_A, ifMatch(T(2))))).status).toBe(412);
      expect((await service.retryAttachment('data-01', INSTANCE_A, ifMatch(T(1)))).generation).toBe(2);
      expect((await problemOf(() => service.deleteAttachment('data-01', INSTANCE_A, ifMatch(T(1))))).status).toBe(412);
      expect((await attachment('data-01', INSTANCE_A))?.life).toBe('alive');
      expect((await service.deleteAttachment('data-01', INSTANCE_A, ifMatch(T(2)))).life).toBe('dying');
    });

    it('an attachment written before it had a generation is at generation 1, pinned by its version', async () => {
      await service.putAttachment('data-01', INSTANCE_A, {});
      const { generation: _dropped, ...older } = (await attachment('data-01', INSTANCE_A))!;
      store.putRaw(older);
      // Another client's retry lands between the read and the write: the version the write is pinned to moved.
      raceFirstWrite((update) => update<AttachmentRecord>(attachmentKey('data-01', INSTANCE_A), { generation: 2 }));
      const problem = await problemOf(() => service.deleteAttachment('data-01', INSTANCE_A, ifMatch(T(1))));
      expect(problem.status).toBe(412);
      expect(problem.detail).toContain('generation 2');
      expect((await attachment('data-01', INSTANCE_A))?.life).toBe('alive');
      expect((await service.deleteAttachment('data-01', INSTANCE_A, ifMatch(T(2)))).life).toBe('dying');
    });
  });

  describe('listInstanceAttachments', () => {
    it("lists the instance's attachments only", async () => {
      await service.createVolume({ volumeId: 'b-vol', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      await service.createVolume({ volumeId: 'a-vol', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      await service.createVolume({ volumeId: 'c-vol', spec: GP3, attachTo: { instanceId: INSTANCE_B } });
      const items = await service.listInstanceAttachments(INSTANCE_A);
      expect(items.map((a) => a.volumeId)).toEqual(['a-vol', 'b-vol']);
      expect(await service.listInstanceAttachments('i-0ccccccccccccccc3')).toEqual([]);
    });

    it('lists them in the order `GET /volumes` does, by the code units of the volume ids, not in a locale\'s order', async () => {
      for (const volumeId of ['b', 'a_b', 'a-b', 'a', 'A']) await service.createVolume({ volumeId, spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      const listed = (await service.listInstanceAttachments(INSTANCE_A)).map((a) => a.volumeId);
      expect(listed).toEqual(['A', 'a', 'a-b', 'a_b', 'b']);
      expect((await service.listVolumes({ limit: 10, instanceId: INSTANCE_A })).items.map((v) => v.volumeId)).toEqual(listed);
    });
  });

  describe('rateWait: how long the next EC2 call waits in line for tokens', () => {
    const { CreateVolume: createBucket, AttachVolume: mutatingBucket } = DEFAULT_ENGINE_CONFIG.accountRateBudgets;
    let budget: MemoryRateBudget;
    let log: RecordingLog;

    beforeEach(() => {
      budget = new MemoryRateBudget();
      log = new RecordingLog();
      service = new VolumeService({ store, clock, newVolumeId: sequentialIds(), rateBudget: budget, log });
    });

    const setStatus = (key: RecordKey, changes: Record<string, unknown>) => store.update(key, changes as RecordChanges);

    it('shows the CreateVolume line on a pending volume, shrinking as the bucket refills, and none once tokens are there', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } });
      expect((await service.getVolume('data-01')).rateWait).toBeUndefined(); // a full bucket: no line
      // Other calls booked 200 tokens: 95 at once, the last at 21 s; a new one would start at 21.2 s.
      await budget.take('CreateVolume', 200, createBucket, clock.now(), 3_600_000);
      const details = await service.getVolume('data-01');
      expect(details.rateWait).toEqual({ action: 'CreateVolume', seconds: 22 });
      // Its attachment waits for the volume, not for a token.
      expect((details.attachments[0] as AttachmentView).rateWait).toBeUndefined();
      clock.advance(10_000);
      expect((await service.getVolume('data-01')).rateWait).toEqual({ action: 'CreateVolume', seconds: 12 });
      clock.advance(12_000);
      expect((await service.getVolume('data-01')).rateWait).toBeUndefined();
    });

    it('shows none while a call is under way (a live claim) or a retry backoff runs', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      // 400 tokens booked: a new call would start at 61.2 s.
      await budget.take('CreateVolume', 400, createBucket, clock.now(), 3_600_000);
      expect((await service.getVolume('data-01')).rateWait).toEqual({ action: 'CreateVolume', seconds: 62 });
      await store.update(volumeKey('data-01'), { claim: { owner: 'executor-1', expiresAt: clock.now() + 60_000 } } as RecordChanges);
      expect((await service.getVolume('data-01')).rateWait).toBeUndefined();
      const later = new Date(clock.now() + 30_000).toISOString();
      await setStatus(volumeKey('data-01'), { claim: null, status: { state: 'pending', attempts: 1, updatedAt: new Date(clock.now()).toISOString(), nextAttemptAt: later } });
      expect((await service.getVolume('data-01')).rateWait).toBeUndefined();
      clock.advance(30_000);
      // The backoff is over; the line is not.
      expect((await service.getVolume('data-01')).rateWait).toEqual({ action: 'CreateVolume', seconds: 32 });
    });

    it('shows the attach and detach lines on attachments, both from EC2\'s shared mutating bucket', async () => {
      await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, multiAttach: true, volumeType: 'io2', iops: 3000 }, attachTo: { instanceId: INSTANCE_A } });
      await service.putAttachment('data-01', INSTANCE_B, {});
      const now = new Date(clock.now()).toISOString();
      await setStatus(volumeKey('data-01'), { status: { state: 'available', attempts: 0, updatedAt: now }, ebsVolumeId: 'vol-0123456789abcdef0', availabilityZone: 'us-east-1a' });
      await setStatus(attachmentKey('data-01', INSTANCE_B), { status: { state: 'attached', attempts: 0, updatedAt: now }, device: '/dev/sdf' });
      await service.deleteAttachment('data-01', INSTANCE_B);
      await budget.take('AttachVolume', 100, mutatingBucket, clock.now(), 3_600_000);
      const details = await service.getVolume('data-01');
      // 45 at once, 55 more at 5 a second: a new call would start at 11.2 s.
      expect(details.attachments.map((a) => [a.instanceId, (a as AttachmentView).rateWait])).toEqual([
        [INSTANCE_A, { action: 'AttachVolume', seconds: 12 }],
        [INSTANCE_B, { action: 'DetachVolume', seconds: 12 }],
      ]);
      expect(details.rateWait).toBeUndefined();
    });

    it("shows a tag change that removes keys in the mutating bucket's line (DeleteTags goes first), one that only sets keys in CreateTags'", async () => {
      await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, tags: { team: 'a', env: 'dev' } } });
      const now = new Date(clock.now()).toISOString();
      await setStatus(volumeKey('data-01'), {
        status: { state: 'available', attempts: 0, updatedAt: now },
        ebsVolumeId: 'vol-0123456789abcdef0',
        availabilityZone: 'us-east-1a',
        observed: { sizeGiB: GP3.sizeGiB, volumeType: 'gp3', tags: { team: 'a', env: 'dev' } },
        observedGeneration: 1,
      });
      await budget.take('AttachVolume', 100, mutatingBucket, clock.now(), 3_600_000);
      await service.patchVolume('data-01', { tags: { team: 'a' } });
      expect((await service.getVolume('data-01')).rateWait).toEqual({ action: 'DeleteTags', seconds: 12 });
      await service.patchVolume('data-01', { tags: { team: 'b' } });
      expect((await service.getVolume('data-01')).rateWait).toEqual({ action: 'DeleteTags', seconds: 12 });
      await service.patchVolume('data-01', { tags: { team: 'b', env: 'dev' } });
      expect((await service.getVolume('data-01')).rateWait).toBeUndefined(); // the CreateTags bucket is full
    });

    it('answers without a wait, and logs why, when the budget cannot be read', async () => {
      const unreachable: SharedRateBudget = {
        take: () => Promise.reject(new Error('unused')),
        waitMs: () => Promise.reject(new Error('ProvisionedThroughputExceededException')),
      };
      service = new VolumeService({ store, clock, rateBudget: unreachable, log });
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      log.entries.length = 0; // the create's own answer read it once already
      const details = await service.getVolume('data-01');
      expect(details).toMatchObject({ volumeId: 'data-01', status: { state: 'pending' } });
      expect(details.rateWait).toBeUndefined();
      expect(log.entries).toEqual([
        expect.objectContaining({ level: 'warn', message: 'could not read the shared rate budget; no wait shown', attributes: expect.objectContaining({ bucket: 'CreateVolume' }) }),
      ]);
    });

    it('reads nothing without a shared budget', async () => {
      service = new VolumeService({ store, clock });
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      await budget.take('CreateVolume', 200, createBucket, clock.now(), 3_600_000);
      expect((await service.getVolume('data-01')).rateWait).toBeUndefined();
    });
  });

  describe('records written straight into the table', () => {
    /** A volume record as a client may write it: only the client's fields. */
    const clientOnly = (volumeId: string, extra: Record<string, unknown> = {}) => ({ kind: 'volume', volumeId, spec: GP3, life: 'alive', generation: 1, ...extra });

    it('reads a record without the system fields with their defaults, and acts on it', async () => {
      store.putRaw(clientOnly('raw-01'));
      store.putRaw({ kind: 'attachment', volumeId: 'raw-01', instanceId: INSTANCE_B, life: 'alive' });
      const pending = await service.listVolumes({ limit: 10, state: 'pending' });
      expect(pending.items).toEqual([
        { volumeId: 'raw-01', spec: GP3, life: 'alive', generation: 1, status: { state: 'pending', attempts: 0, updatedAt: '' }, createdAt: '' },
      ]);
      const details = await service.getVolume('raw-01');
      expect(details.status).toEqual({ state: 'pending', attempts: 0, updatedAt: '' });
      expect(details.attachments).toEqual([
        { volumeId: 'raw-01', instanceId: INSTANCE_B, life: 'alive', generation: 1, status: { state: 'pending', attempts: 0, updatedAt: '' }, createdAt: '' },
      ]);
      expect((await problemOf(() => service.retryVolume('raw-01'))).detail).toBe('volume raw-01 is pending, not in error: there is nothing to retry');
      expect((await problemOf(() => service.retryAttachment('raw-01', INSTANCE_B))).status).toBe(409);

      // Changed, attached and deleted as any other record; the store numbers it at its first write.
      const patched = await service.patchVolume('raw-01', { volumeType: 'io2', iops: 1000 });
      expect(patched).toMatchObject({ generation: 2, spec: { ...GP3, volumeType: 'io2', iops: 1000 } });
      expect(await volume('raw-01')).toMatchObject({ generation: 2, version: 1 });
      store.putRaw(clientOnly('raw-02'));
      const attached = await service.putAttachment('raw-02', INSTANCE_A, {});
      expect(attached.created).toBe(true);
      expect(attached.value.status).toMatchObject({ state: 'pending', message: 'waiting for volume raw-02 to become available' });
      expect((await service.deleteAttachment('raw-01', INSTANCE_B)).life).toBe('dying');
      expect((await service.deleteVolume('raw-02')).life).toBe('dying');
    });

    it('refuses every request naming a record that is not valid with 409 invalid-record and the reasons, and writes nothing', async () => {
      store.putRaw(clientOnly('bad', { generation: '1' }));
      const writes = store.writes;
      const before = await volume('bad');
      const reasons = [{ path: 'record.generation', message: 'Invalid input: expected number, received string' }];
      const detail = 'the record of volume bad in the table is not valid, so nothing is done with it: record.generation: Invalid input: expected number, received string. Correct it in the table, or remove it there';
      for (const request of [
        () => service.getVolume('bad'),
        () => service.patchVolume('bad', { sizeGiB: 40 }),
        () => service.retryVolume('bad'),
        () => service.deleteVolume('bad'),
        () => service.putAttachment('bad', INSTANCE_A, {}),
        () => service.createVolume({ volumeId: 'bad', spec: GP3 }),
        () => service.createVolume({ volumeId: 'bad', spec: GP3, attachTo: { instanceId: INSTANCE_A } }),
      ]) {
        const problem = await problemOf(request);
        expect(problem.status).toBe(409);
        expect(problem.kind).toBe('invalid-record');
        expect(problem.detail).toBe(detail);
        expect(problem.errors).toEqual(reasons);
      }
      expect(store.writes).toBe(writes);
      expect(await volume('bad')).toEqual(before);

      store.putRaw({ kind: 'volume', volumeId: 'no-spec', life: 'alive', generation: 1 });
      const created = await problemOf(() => service.createVolume({ volumeId: 'no-spec', spec: GP3 }));
      expect([created.status, created.errors.map((e) => e.path)]).toEqual([409, ['record.spec']]);
    });

    it('lists a record that is not valid as the watcher marks it: error, InvalidRecord, the reasons', async () => {
      await service.createVolume({ volumeId: 'good', spec: GP3 });
      store.putRaw(clientOnly('bad', { generation: '1' }));
      const marked = { state: 'error', code: 'InvalidRecord', message: 'generation: Invalid input: expected number, received string', attempts: 0 };
      const invalidItem = { volumeId: 'bad', invalid: true, status: { ...marked, updatedAt: '2026-01-01T00:00:00.000Z' } };
      expect((await service.listVolumes({ limit: 10 })).items.map((item) => ('invalid' in item ? item : item.volumeId))).toEqual([invalidItem, 'good']);
      expect((await service.listVolumes({ limit: 10, state: 'error' })).items).toEqual([invalidItem]);
      expect((await service.listVolumes({ limit: 10, state: 'pending' })).items.map((item) => item.volumeId)).toEqual(['good']);
      // As the watcher wrote it: its time is kept.
      await store.update(volumeKey('bad'), { status: { ...marked, updatedAt: '2025-12-31T00:00:00.000Z' } } as RecordChanges);
      expect((await service.listVolumes({ limit: 10, state: 'error' })).items).toEqual([{ ...invalidItem, status: { ...marked, updatedAt: '2025-12-31T00:00:00.000Z' } }]);

      // An attachment that is not valid, in its volume's details and the instance's list; requests naming it are 409.
      store.putRaw({ kind: 'attachment', volumeId: 'good', instanceId: INSTANCE_A, life: 'sleeping', generation: 1 });
      const invalidAttachment = { volumeId: 'good', instanceId: INSTANCE_A, invalid: true, status: { ...marked, message: 'life: Invalid option: expected one of "alive"|"dying"', updatedAt: '2026-01-01T00:00:00.000Z' } };
      expect((await service.getVolume('good')).attachments).toEqual([invalidAttachment]);
      expect(await service.listInstanceAttachments(INSTANCE_A)).toEqual([invalidAttachment]);
      expect((await service.listVolumes({ limit: 10, instanceId: INSTANCE_A })).items.map((item) => item.volumeId)).toEqual(['good']);
      for (const request of [
        () => service.putAttachment('good', INSTANCE_A, {}),
        () => service.retryAttachment('good', INSTANCE_A),
        () => service.deleteAttachment('good', INSTANCE_A),
      ]) {
        expect((await problemOf(request)).kind).toBe('invalid-record');
      }
      // It stands in the way of another attachment of a volume that is not multi-attach.
      const beside = await problemOf(() => service.putAttachment('good', INSTANCE_B, {}));
      expect(beside.kind).toBe('invalid-record');
      expect(beside.detail).toMatch(/^volume good is not multi-attach and cannot be attached beside another attachment, and the record of the attachment of good to i-0aaaaaaaaaaaaaaa1 in the table is not valid/);
    });

    it('deletes a volume asked for with a tag key of 128 characters (EC2 takes 127): not valid while alive, deleted all the same', async () => {
      const key = 'k'.repeat(128);
      store.putRaw(clientOnly('long-key', { spec: { ...GP3, tags: { [key]: 'v' } }, status: { state: 'error', attempts: 0, updatedAt: '' }, version: 2, createdAt: '2025-01-01T00:00:00.000Z' }));
      const read = await problemOf(() => service.getVolume('long-key'));
      expect([read.kind, read.errors]).toEqual(['invalid-record', [{ path: `record.spec.tags.${key}`, message: 'tag key must be 1–127 characters, got 128' }]]);
      expect((await problemOf(() => service.patchVolume('long-key', { tags: {} }))).kind).toBe('invalid-record');
      const deleted = await service.deleteVolume('long-key');
      expect(deleted).toMatchObject({ life: 'dying', spec: { tags: { [key]: 'v' } } });
      expect(await volume('long-key')).toMatchObject({ life: 'dying', version: 3 });
      // A key longer still is no key EC2 ever took: not valid, dying or not.
      store.putRaw(clientOnly('longer-key', { spec: { ...GP3, tags: { ['k'.repeat(129)]: 'v' } } }));
      expect((await problemOf(() => service.deleteVolume('longer-key'))).kind).toBe('invalid-record');
      expect(await volume('longer-key')).toMatchObject({ life: 'alive' });
    });

    it('deletes a volume whose spec alone is beyond the EBS limits: the system deletes it all the same', async () => {
      store.putRaw(clientOnly('huge', { spec: { ...GP3, sizeGiB: 70_000 }, status: { state: 'error', code: 'InvalidRecord', attempts: 0, updatedAt: '' }, version: 3, createdAt: '2025-01-01T00:00:00.000Z' }));
      expect((await problemOf(() => service.getVolume('huge'))).errors).toEqual([{ path: 'record.spec.sizeGiB', message: 'gp3 volumes are 1–65536 GiB, got 70000' }]);
      const deleted = await service.deleteVolume('huge');
      expect(deleted).toMatchObject({ life: 'dying', spec: { sizeGiB: 70_000 } });
      expect(await volume('huge')).toMatchObject({ life: 'dying', version: 4 });
      expect((await service.deleteVolume('huge')).life).toBe('dying');
    });

    it('deletes a volume whose faults are all ones a delete does not use: no placement, a retriedGeneration past its generation', async () => {
      store.putRaw(clientOnly('unplaced', { spec: UNPLACED }));
      store.putRaw(clientOnly('retried-ahead', { retriedGeneration: 5 }));
      for (const [volumeId, path] of [['unplaced', 'record.spec.availabilityZone'], ['retried-ahead', 'record.retriedGeneration']] as const) {
        expect((await problemOf(() => service.getVolume(volumeId))).errors.map((issue) => issue.path)).toEqual([path]);
        expect(await service.deleteVolume(volumeId)).toMatchObject({ life: 'dying' });
        expect(await volume(volumeId)).toMatchObject({ life: 'dying' });
      }
      // One fault a delete needs to be right still refuses it: a state the system never writes.
      store.putRaw(clientOnly('final', { spec: UNPLACED, status: { state: 'deleted', attempts: 0, updatedAt: '' } }));
      expect((await problemOf(() => service.deleteVolume('final'))).kind).toBe('invalid-record');
      expect(await volume('final')).toMatchObject({ life: 'alive' });
    });

    it('says that a delete is open to a volume whose faults are all ones a delete does not use, and only to such a one', async () => {
      const hint = (volumeId: string) => `. Correct it in the table, or remove it there; or delete the volume (DELETE /volumes/${volumeId}): its faults are all ones a delete does not use`;
      store.putRaw(clientOnly('unplaced', { spec: UNPLACED }));
      store.putRaw(clientOnly('huge', { spec: { ...GP3, sizeGiB: 70_000 } }));
      store.putRaw(clientOnly('long-key', { spec: { ...GP3, tags: { ['k'.repeat(128)]: 'v' } } }));
      for (const volumeId of ['unplaced', 'huge', 'long-key']) {
        for (const request of [() => service.getVolume(volumeId), () => service.patchVolume(volumeId, { sizeGiB: 80_000 }), () => service.retryVolume(volumeId)]) {
          expect((await problemOf(request)).detail.endsWith(hint(volumeId)), volumeId).toBe(true);
        }
      }
      // Faults a delete uses: no such hint.
      store.putRaw(clientOnly('final', { spec: UNPLACED, status: { state: 'deleted', attempts: 0, updatedAt: '' } }));
      store.putRaw(clientOnly('longer-key', { spec: { ...GP3, tags: { ['k'.repeat(129)]: 'v' } } }));
      for (const volumeId of ['final', 'longer-key', 'bad']) {
        if (volumeId === 'bad') store.putRaw(clientOnly('bad', { generation: '1' }));
        const detail = (await problemOf(() => service.getVolume(volumeId))).detail;
        expect(detail.endsWith('. Correct it in the table, or remove it there'), `${volumeId}: ${detail}`).toBe(true);
      }
    });

    it("detaches an attachment asking for a device EC2 refuses (asked for before names were held to EC2's): not valid while alive, marked dying all the same, and says so", async () => {
      await service.createVolume({ volumeId: 'data-01', spec: GP3 });
      store.putRaw({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive', requestedDevice: '/dev/xvdea', generation: 1 });
      const hint = `. Correct it in the table, or remove it there; or delete the attachment (DELETE /volumes/data-01/attachments/${INSTANCE_A}): its faults are all ones a detach does not use`;
      for (const request of [() => service.putAttachment('data-01', INSTANCE_A, {}), () => service.retryAttachment('data-01', INSTANCE_A)]) {
        const problem = await problemOf(request);
        expect(problem.kind).toBe('invalid-record');
        expect(problem.errors.map((issue) => issue.path)).toEqual(['record.requestedDevice']);
        expect(problem.detail.endsWith(hint), problem.detail).toBe(true);
      }
      expect(await service.deleteAttachment('data-01', INSTANCE_A)).toMatchObject({ life: 'dying', requestedDevice: '/dev/xvdea' });
      expect(await attachment('data-01', INSTANCE_A)).toMatchObject({ life: 'dying', requestedDevice: '/dev/xvdea' });
      // A name no rule ever took is not valid, dying or not: no such hint, and the delete is refused.
      store.putRaw({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_B, life: 'alive', requestedDevice: '/dev/xvdaaa', generation: 1 });
      const refused = await problemOf(() => service.deleteAttachment('data-01', INSTANCE_B));
      expect(refused.kind).toBe('invalid-record');
      expect(refused.detail.endsWith('. Correct it in the table, or remove it there'), refused.detail).toBe(true);
      expect(await attachment('data-01', INSTANCE_B)).toMatchObject({ life: 'alive' });
    });
  });
});

describe('VolumeService with the engine: a spec EC2 refused at creation, put right through PATCH', () => {
  /** Watcher and executor together for `seconds`, as the stream and the queue would run them. */
  async function run(h: ReturnType<typeof harness>, seconds: number) {
    for (let i = 0; i < seconds / 5; i++) {
      await h.watch();
      await h.settle(5000);
    }
    await h.watch();
  }

  it('a PATCH of the AZ EC2 refused creates the volume there; once created, the AZ is fixed', async () => {
    const h = harness();
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await service.createVolume({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'zz-nowhere-9z' } });
    await run(h, 30);
    expect(await service.getVolume('data-1')).toMatchObject({ status: { state: 'error', code: 'InvalidZone.NotFound' } });

    const fixed = await service.patchVolume('data-1', { availabilityZone: ENGINE_AZ });
    expect(fixed.generation).toBe(2);
    // The change is the retry too, and the answer says so: a client waiting on it right after never reads the error.
    expect(fixed.status).toMatchObject({ state: 'pending', message: 'retry requested', attempts: 0 });
    expect(fixed.status.code).toBeUndefined();
    await run(h, 30);
    expect(await service.getVolume('data-1')).toMatchObject({ status: { state: 'available' }, availabilityZone: ENGINE_AZ, ebsVolumeId: expect.any(String) });
    expect(h.ebs.volumes()).toHaveLength(1);
    expect((await problemOf(() => service.patchVolume('data-1', { availabilityZone: 'zz-nowhere-9z' }))).status).toBe(400);
  });

  const OTHER_AZ = 'eu-west-1b';

  /** A volume creating with no CreateVolume recorded (its first send refused), whose AZ a PATCH may still change. */
  async function creatingWithNothingRecorded() {
    const h = harness();
    h.ebs.addInstance({ instanceId: 'i-0bbbbbbbbbbbbbbb2', availabilityZone: OTHER_AZ });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await h.store.create({ ...newVolume('data-1'), status: { state: 'creating', attempts: 1, updatedAt: new Date(h.clock.now()).toISOString() } });
    return { h, service };
  }

  it('a PATCH of the AZ landing under the executor\'s claim, before it records its CreateVolume, is the AZ EC2 is asked for', async () => {
    const { h, service } = await creatingWithNothingRecorded();
    const update = h.store.update.bind(h.store);
    let patched: Awaited<ReturnType<VolumeService['patchVolume']>> | undefined;
    h.store.update = async (key, changes, condition) => {
      // The client's PATCH lands after the executor claimed the record, just before it records its request.
      if ((changes as Partial<VolumeRecord>).createRequest && !patched) patched = await service.patchVolume('data-1', { availabilityZone: OTHER_AZ });
      return update(key, changes, condition);
    };
    await h.queue.send([{ message: { op: 'create-volume', key: volumeKey('data-1') }, delaySeconds: 0 }]);
    await run(h, 60);
    expect(patched?.spec.availabilityZone).toBe(OTHER_AZ);
    expect(h.ebs.volumes().map((volume) => volume.availabilityZone)).toEqual([OTHER_AZ]);
    expect(await service.getVolume('data-1')).toMatchObject({ status: { state: 'available' }, availabilityZone: OTHER_AZ });
    expect((await service.getVolume('data-1')).status.code).toBeUndefined();
  });

  it('the create of that PATCH, whose message another environment found while the claim was held, is made as soon as the claim goes, not when its lease ends', async () => {
    const { h, service } = await creatingWithNothingRecorded();
    const update = h.store.update.bind(h.store);
    const other = h.environment();
    let patched = false;
    h.store.update = async (key, changes, condition) => {
      if ((changes as Partial<VolumeRecord>).createRequest && !patched) {
        patched = true;
        await service.patchVolume('data-1', { availabilityZone: OTHER_AZ });
        // The stream brings the PATCH to the watcher, and its message to another environment, while the claim is still held.
        await h.watch();
        const received = h.queue.receive(10);
        await other.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
        for (const r of received) h.queue.delete(r.receiptHandle);
      }
      return update(key, changes, condition);
    };
    await h.queue.send([{ message: { op: 'create-volume', key: volumeKey('data-1') }, delaySeconds: 0 }]);
    await run(h, 30);
    expect(h.ebs.volumes().map((volume) => volume.availabilityZone)).toEqual([OTHER_AZ]);
  });
});
