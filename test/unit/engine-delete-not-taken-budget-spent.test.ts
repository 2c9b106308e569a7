/**
 * A dying volume's delete that EC2 accepted and did not carry out (the volume still listed
 * available past the describe grace) is a failed attempt of the delete, made again after its
 * backoff; with the attempt budget spent it is in error instead, deleted again after the longest
 * backoff, not `available`.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { data1Created, harness, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('executor: a delete not taken on the last attempt of the budget', () => {
  it('ends the dying volume in error, not available', async () => {
    const h = harness();
    await data1Created(h, 10_000);
    expect((await volumeOf(h)).status.state).toBe('available');
    await h.store.update<VolumeRecord>(KEY, { life: 'dying' });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    // EC2 accepts every DeleteVolume and carries none out.
    const executor = new Executor({ store: h.store, queue: h.queue, provider: providerOver(h.ebs, { deleteVolume: async () => undefined }), clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await executor.run(h.batchOf(h.op('delete-volume', KEY)));
    const deleting = await volumeOf(h);
    expect(deleting.status.state).toBe('deleting');
    // Every attempt but the last already spent.
    await h.store.update<VolumeRecord>(KEY, { status: { ...deleting.status, attempts: DEFAULT_ENGINE_CONFIG.maxAttempts - 1 } });

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1000);
    await executor.run(h.batchOf(h.op('check-volume', KEY)));
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'VolumeNotDeleted' });
  });
});
