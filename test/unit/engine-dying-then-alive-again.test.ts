/**
 * A record its client made dying drops the failed attempts of its live operation, which is not made
 * any more (`madeDyingStatus`). One set back to alive before the watcher read it (both changes in
 * one batch) still makes that operation: its failed attempts and their next attempt stay.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { data1Created, harness, volumeKey } from './engine-fixtures.js';

describe('a volume made dying and set back to alive before the watcher reads it', () => {
  it('keeps the failed attempts of its live operation and their next attempt', async () => {
    const h = harness();
    await data1Created(h);
    const available = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(available.status.state).toBe('available');
    const at = new Date(h.clock.now()).toISOString();
    const failedTagChange = {
      state: 'available' as const,
      code: 'RequestLimitExceeded',
      message: 'Request limit exceeded.',
      attempts: 2,
      updatedAt: at,
      operationStartedAt: at,
      nextAttemptAt: new Date(h.clock.now() + 60_000).toISOString(),
    };
    // A tag change asked for, whose CreateTags EC2 refused for its rate: retried in a minute.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...available.spec, tags: { team: 'storage' } }, generation: 2, status: failedTagChange });
    h.changes.splice(0);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    expect(h.changes.map((change) => change.eventName)).toEqual(['MODIFY', 'MODIFY']);
    await h.watch();

    expect((await h.store.get(volumeKey('data-1')))?.status).toEqual(failedTagChange);
  });
});
