/**
 * A list shows a record that is not valid as the watcher marks it (`error`, code `InvalidRecord`,
 * the reasons), at the time of the list; a status the watcher wrote for the same reasons keeps its
 * time. Any other status written there (other reasons, another code or state, no time, none at
 * all) is not that mark: the list shows the mark as of now.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { VolumeService } from '../../lib/api/service.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { sequentialIds, GP3, serviceWorld } from './api-fixtures.js';

const WRITTEN_AT = '2025-12-31T00:00:00.000Z';

describe('the status a list shows of a record that is not valid', () => {
  let store: MemoryRecordStore;
  let service: VolumeService;
  let now: string;

  beforeEach(() => {
    const world = serviceWorld({ newVolumeId: sequentialIds() });
    ({ store, service } = world);
    now = new Date(world.clock.now()).toISOString();
  });

  /** The status listed for volume `bad` (not valid: its generation is text) holding `status` as written. */
  const listed = async (status: unknown) => {
    store.putRaw({ kind: 'volume', volumeId: 'bad', spec: GP3, life: 'alive', generation: '1', status });
    const [item] = (await service.listVolumes({ limit: 10 })).items;
    expect(item).toMatchObject({ volumeId: 'bad', invalid: true, status: { state: 'error', code: 'InvalidRecord' } });
    return (item as { status: { message: string; updatedAt: unknown } }).status;
  };

  /** The status listed when `status` as written carries the very reasons the list gives for it. */
  const listedWithItsReasons = async (status: Record<string, unknown>) => {
    const { message } = await listed(status);
    return listed({ ...status, message });
  };

  it('keeps the time of the mark the watcher wrote for the same reasons', async () => {
    const status = await listedWithItsReasons({ state: 'error', code: 'InvalidRecord', attempts: 0, updatedAt: WRITTEN_AT });
    expect(status.updatedAt).toBe(WRITTEN_AT);
  });

  it('is of now when the mark written gives other reasons', async () => {
    const status = await listed({ state: 'error', code: 'InvalidRecord', message: 'spec: an older reason', attempts: 0, updatedAt: WRITTEN_AT });
    expect(status).toEqual({ state: 'error', code: 'InvalidRecord', message: 'generation: Invalid input: expected number, received string', attempts: 0, updatedAt: now });
  });

  it('is of now when the status written has the same reasons under another code or state', async () => {
    expect((await listedWithItsReasons({ state: 'error', code: 'VolumeLimitExceeded', attempts: 0, updatedAt: WRITTEN_AT })).updatedAt).toBe(now);
    expect((await listedWithItsReasons({ state: 'pending', code: 'InvalidRecord', attempts: 0, updatedAt: WRITTEN_AT })).updatedAt).toBe(now);
  });

  it('is of now when the status written has no time as text, or is null', async () => {
    expect((await listedWithItsReasons({ state: 'error', code: 'InvalidRecord', attempts: 0, updatedAt: 1_767_139_200_000 })).updatedAt).toBe(now);
    expect((await listed(null)).updatedAt).toBe(now);
  });
});
