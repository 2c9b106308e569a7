/**
 * The dead-letter note is written only for a step that threw on a message's last delivery. A
 * failure of the queue on that delivery may come after the record's work was done and written:
 * the message is reported failed, and the record keeps the status its work wrote.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { QUEUE } from '../../lib/settings.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a last delivery whose follow-up cannot be sent', () => {
  it('is reported failed and leaves the status its work wrote, with no dead-letter note', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    h.queue.send = async () => {
      throw new Error('SQS unavailable');
    };
    const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    const last = { messageId: 'last', message: h.op('create-volume', volumeKey('data-1')), receiveCount: QUEUE.maxReceiveCount };
    expect((await executor.run([last])).failedMessageIds).toEqual(['last']);

    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('creating');
    expect(volume.status.code).toBeUndefined();
    expect(volume.ebsVolumeId).toBeDefined();
  });
});
