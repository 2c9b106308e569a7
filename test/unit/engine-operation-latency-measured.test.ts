/**
 * `OperationLatency` is the EC2 call's time in milliseconds, measured on the clock from the call's
 * start to its answer, for a call that goes through and for one EC2 fails alike.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness, newVolume, providerOver, volumeKey } from './engine-fixtures.js';

async function createTaking(ms: number, fails: boolean) {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  const provider = providerOver(h.ebs, {
    createVolume: async (request) => {
      await h.clock.sleep(ms);
      if (fails) throw new ProviderError('transient', 'InternalError', 'An internal error has occurred.');
      return h.ebs.createVolume(request);
    },
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
  const run = executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
  await h.clock.advance(ms);
  await run;
  return h.metrics.operations.filter((event) => event.operation === 'create-volume');
}

describe('the latency of an EC2 call', () => {
  it('is the time EC2 took to answer a call that went through (the volume then creating)', async () => {
    expect(await createTaking(250, false)).toEqual([{ operation: 'create-volume', outcome: 'in-progress', latencyMs: 250 }]);
  });

  it('is the time EC2 took to fail a call', async () => {
    expect(await createTaking(400, true)).toEqual([{ operation: 'create-volume', outcome: 'retrying', latencyMs: 400 }]);
  });
});
