/**
 * The client's fields of a record (its spec among them) are the client's request whatever else
 * changes with them: a spec changed straight in the table, without a new generation, is carried out; with no failed
 * attempt to drop, the watcher writes nothing on the record.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { data1Created, harness, volumeKey } from './engine-fixtures.js';
import { modify } from './watcher-fixtures.js';

describe('a spec changed straight in the table without a new generation', () => {
  it("is the client's request: its tag change is sent at once and carried out", async () => {
    const h = harness();
    await data1Created(h);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(volume.status.state).toBe('available');

    const changed = await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags: { team: 'b' } } });
    expect(changed.generation).toBe(volume.generation);
    await h.watcher.handle([modify(volume, changed)]);
    // No failed attempt to drop: the record is left to the executor as written.
    expect(await h.store.get(volumeKey('data-1'))).toEqual(changed);
    expect(h.queued()).toEqual([expect.objectContaining({ key: 'data-1', delaySeconds: 0 })]);
    await h.settle(10_000);
    expect(h.ebs.calls.CreateTags).toBe(1);
  });
});
