/**
 * README, alarm `DeadLetters`: a message whose step fails on something nothing classified is logged
 * at each delivery as `operation step failed`, and on its last delivery the executor writes
 * `ExecutorFailed` on its record and logs `message dead-lettered; status written on the record`.
 */
import { describe, expect, it } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { QUEUE } from '../../lib/settings.js';
import { answerOfNoShape, executorOver, harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a message whose step keeps failing', () => {
  it('logs each failure, and its last delivery, at level ERROR under the names the README gives', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // CreateVolume made, its answer of no shape the executor reads: every attempt throws.
    const provider = answerOfNoShape(h);
    const log = new RecordingLog();
    const executor = executorOver(h, { provider, log });
    await h.queue.send([{ message: h.op('create-volume', volumeKey('data-1')), delaySeconds: 0 }]);

    const errorsPerDelivery: string[][] = [];
    for (let delivery = 1; delivery <= QUEUE.maxReceiveCount; delivery++) {
      const received = h.queue.receive(10);
      expect(received.map((r) => r.receiveCount)).toEqual([delivery]);
      const before = log.entries.length;
      const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message, receiveCount: r.receiveCount })));
      expect(failedMessageIds).toEqual(received.map((r) => r.messageId));
      errorsPerDelivery.push(log.entries.slice(before).filter((entry) => entry.level === 'error').map((entry) => entry.message));
      await h.clock.advance(QUEUE.visibilityTimeoutSeconds * 1000 + 1000);
    }

    for (const errors of errorsPerDelivery.slice(0, -1)) expect(errors).toEqual(['operation step failed']);
    expect(errorsPerDelivery.at(-1)).toEqual(['operation step failed', 'message dead-lettered; status written on the record']);
    expect((await volumeOf(h)).status.code).toBe('ExecutorFailed');
  });
});
