import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe('Watcher: a client change of a record in error that keeps its generation', () => {
  it('is no retry: the record stays in error with its attempts, and nothing is sent (only a bumped generation retries)', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'The parameter is not valid'));
    await h.watch();
    await h.drain();
    await h.watch();
    const failed = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(failed.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });
    expect(h.queue.pending()).toEqual([]);

    // Written straight into the table: another size, the generation left as it was.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...failed.spec, sizeGiB: 20 } });
    const written = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    await h.watch();
    expect(await h.store.get(volumeKey('data-1'))).toEqual(written);
    expect(written.status).toEqual(failed.status);
    expect(h.queue.pending()).toEqual([]);
  });
});
