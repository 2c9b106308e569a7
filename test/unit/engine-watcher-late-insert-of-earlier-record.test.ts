import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { type RecordChange } from '../../lib/engine/watcher.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';
import { insert } from './watcher-fixtures.js';

describe('Watcher: the insert of a record removed since, delivered late', () => {
  it('enqueues a look at the record written again under its key once the executor started its operation there, even where the versions agree: its own chain of checks stays the only one', async () => {
    const h = harness({ ebsTimings: { create: 600_000 } });
    // The record written again a second after the first was put in the table and removed.
    await h.clock.advance(1000);
    await h.store.create(newVolume('data-1', { createdAt: new Date(h.clock.now()).toISOString() }));
    await h.watch();
    await h.drain();
    await h.watch();
    const current = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(current.status.state).toBe('creating');
    const chain = h.queue.pending().map((pending) => pending.message);
    expect(chain).toEqual([expect.objectContaining({ op: 'check-volume' })]);
    expect(chain[0]!.nudge).toBeUndefined();

    // The first record's insert, at the version the record written since has reached by now.
    const earlier = newVolume('data-1', { version: current.version });
    const late: RecordChange = insert(earlier, 'late-insert');
    expect(await h.watcher.handle([late])).toEqual({ failedChangeIds: [] });
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([...chain, expect.objectContaining({ op: 'check-volume', nudge: true })]);
  });
});
