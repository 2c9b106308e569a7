/**
 * An attach given up on while EC2 may still make it (its last AttachVolume unanswered) keeps the
 * device written before the call and is looked at once more after the describe grace, so that its
 * status tells whether EC2 attached the volume after all.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, newAttachment, newVolume, providerOver } from './engine-fixtures.js';

describe('an attach given up on after an unanswered AttachVolume', () => {
  it('keeps its device and is looked at once more after the describe grace', async () => {
    const h = harness({ config: { maxAttempts: 1 } });
    await h.store.create(newVolume('data-1'));
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    const provider = providerOver(h.ebs, {
      attachVolume: async () => {
        throw new ProviderError('transient', 'RequestTimeout', 'AttachVolume timed out');
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { maxAttempts: 1 } });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    h.queue.purge();
    await executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'RequestTimeout' }, device: '/dev/sdf' });
    expect(h.queued()).toEqual([{ op: 'check-attachment', key: 'data-1/i-0123456789abcdef0', delaySeconds: DEFAULT_ENGINE_CONFIG.describeGraceMs / 1000 }]);
  });
});
