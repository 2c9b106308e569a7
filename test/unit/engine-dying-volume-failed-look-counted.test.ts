/**
 * A look at a live volume at rest whose DescribeVolumes fails is no attempt of anything; a dying
 * volume EC2 still lists attached (to an instance no attachment record names) is no volume at
 * rest: its looks are steps of its delete, waiting for EC2 to report it detached, so a failed one counts as a failed attempt of that delete, retried after
 * its backoff (the attempt budget still ends an outage that never lifts).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, providerOver, volumeKey, volumeOf, attachData1 } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('a failed look at a dying volume still attached', () => {
  it('counts as a failed attempt, where the same look at a live one writes nothing', async () => {
    const h = harness();
    await attachData1(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    const attached = await volumeOf(h);
    expect(attached.status).toMatchObject({ state: 'in-use', attempts: 0 });

    const outage = providerOver(h.ebs, {
      describeVolumes: async () => {
        throw new ProviderError('transient', 'Unavailable', 'EC2 is unavailable');
      },
    });
    const looking = new Executor({ store: h.store, queue: h.queue, provider: outage, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });

    // Alive and at rest: the failed look writes nothing.
    await looking.run(h.batchOf(h.op('check-volume', KEY)));
    expect((await volumeOf(h)).status).toEqual(attached.status);

    // Dying while EC2 still lists it attached where no attachment record says so (attached outside
    // the system): it waits for EC2 to report it detached, and the look is a step of the delete.
    await h.store.remove(attachmentKey('data-1'));
    await h.store.update<VolumeRecord>(KEY, { life: 'dying' });
    await looking.run(h.batchOf(h.op('check-volume', KEY)));
    const dying = await volumeOf(h);
    expect(dying.status).toMatchObject({ state: 'in-use', attempts: 1, code: 'Unavailable' });
    expect(dying.status.nextAttemptAt).toBeDefined();
  });
});
