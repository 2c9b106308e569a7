/**
 * Every record the executor acts on is claimed before its EC2 call. A CreateVolume repeated from
 * `creating` (its answer lost) has nothing to write before the call, so the claim is taken on its
 * own: the call is made with the record held by this invocation, and nothing else acts on it then.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { harness, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a CreateVolume repeated from creating', () => {
  it('is made with the record claimed by the invocation making it', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const claimsAtCall: (VolumeRecord['claim'] | undefined)[] = [];
    let loseAnswer = true;
    const provider = providerOver(h.ebs, {
      createVolume: async (request) => {
        claimsAtCall.push(((await h.store.get(volumeKey('data-1'))) as VolumeRecord).claim);
        const volume = await h.ebs.createVolume(request);
        if (loseAnswer) throw new ProviderError('transient', 'RequestTimeout', 'CreateVolume timed out');
        return volume;
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, newOwnerId: () => 'me' });
    await executor.run([{ messageId: 'first', message: h.op('create-volume', volumeKey('data-1')) }]);
    const afterLoss = await volumeOf(h);
    expect(afterLoss.status.state).toBe('creating');
    expect(afterLoss.createRequest).toBeDefined();
    expect(afterLoss.ebsVolumeId).toBeUndefined();

    loseAnswer = false;
    await h.clock.advance(60_000);
    await executor.run([{ messageId: 'again', message: h.op('create-volume', volumeKey('data-1')) }]);
    expect(claimsAtCall).toHaveLength(2);
    expect(claimsAtCall[1]).toMatchObject({ owner: 'me' });
    expect((await volumeOf(h)).ebsVolumeId).toBeDefined();
  });
});
