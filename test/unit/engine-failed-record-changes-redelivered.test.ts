/**
 * The watcher answers all the changes of one record in a batch from the record's current state.
 * When that fails (a store read failing), every change of the record in the batch is reported for
 * redelivery, not only the first: the stream then retries from the earliest, and none is taken as
 * handled.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('a failed handling of a record with several changes in the batch', () => {
  it('reports every change of that record for redelivery, and the other records go on', async () => {
    const h = harness();
    await h.store.create(newVolume('a'));
    await h.store.update<VolumeRecord>(volumeKey('a'), { spec: { ...newVolume('a').spec, sizeGiB: 20 }, generation: 2 });
    await h.store.create(newVolume('b'));
    const changes = h.changes.splice(0);
    expect(changes.map((change) => [change.key.kind === 'volume' && change.key.volumeId, change.eventName])).toEqual([
      ['a', 'INSERT'],
      ['a', 'MODIFY'],
      ['b', 'INSERT'],
    ]);
    h.store.failNext('get', new Error('DynamoDB unavailable'));

    const result = await h.watcher.handle(changes);

    expect(result.failedChangeIds).toEqual([changes[0]!.id, changes[1]!.id]);
    expect(h.queued()).toEqual([{ op: 'create-volume', key: 'b', delaySeconds: 0 }]);
  });
});
