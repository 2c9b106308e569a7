/**
 * An attach given up before any AttachVolume was made (DescribeInstances failing until its
 * attempts are spent) ends in error with nothing more to look at: no device was ever recorded, so
 * EC2 cannot be attaching the volume, and no look follows the give-up (only an attach that may
 * still be made in EC2 gets one more look).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachmentKey, harness, newAttachment, newVolume } from './engine-fixtures.js';

describe('executor: an attach given up before its call', () => {
  it('ends in error without a device, and no look at it follows', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));
    // Every check of the attachment sent from here on.
    const checks: number[] = [];
    const send = h.queue.send.bind(h.queue);
    h.queue.send = (operations) => {
      for (const o of operations) if (o.message.op === 'check-attachment' && o.message.key.kind === 'attachment') checks.push(h.clock.now());
      return send(operations);
    };
    h.ebs.failNext('DescribeInstances', new ProviderError('transient', 'Unavailable', 'The service is unavailable.'), 1000);
    await h.watch();
    const attachment = async () => (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    for (let i = 0; i < 400 && (await attachment()).status.state !== 'error'; i++) await h.settle(10_000, 10_000);
    const failed = await attachment();
    expect(failed.status).toMatchObject({ state: 'error', code: 'Unavailable', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts });
    expect(failed.device).toBeUndefined();
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
    await h.settle(60_000, 1000);
    expect(checks).toEqual([]);
    expect(h.queued().filter((q) => q.key.startsWith('data-1/'))).toEqual([]);
  });
});
