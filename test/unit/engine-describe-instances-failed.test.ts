/**
 * A failed DescribeInstances (EC2 unavailable) fails the steps that need the instance for this
 * attempt only: an attach is not made without its instance's device names, a volume placed by an
 * instance is not created without its zone; each is a failed attempt retried after its backoff,
 * which then goes ahead.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { AZ, INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const unavailable = () => new ProviderError('transient', 'Unavailable', 'The service is unavailable. Please try again shortly.');

describe('executor: DescribeInstances failing', () => {
  it('an attach is not made: a failed attempt, retried after its backoff, which attaches the volume', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));

    h.ebs.failNext('DescribeInstances', unavailable());
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    const failed = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(failed.status).toMatchObject({ state: 'pending', code: 'Unavailable', attempts: 1 });
    expect(failed.status.nextAttemptAt).toBeDefined();
    expect(failed.device).toBeUndefined();
    expect(h.ebs.calls.AttachVolume).toBe(0);

    await h.settle(5 * 60_000, 5_000);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached', attempts: 0 } });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('a volume placed by an instance is not created: a failed attempt, retried after its backoff, which creates it in the instance\'s zone', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));

    h.ebs.failNext('DescribeInstances', unavailable());
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    const failed = await volumeOf(h);
    expect(failed.status).toMatchObject({ state: 'pending', code: 'Unavailable', attempts: 1 });
    expect(h.ebs.calls.CreateVolume).toBe(0);

    await h.settle(5 * 60_000, 5_000);
    expect(await volumeOf(h)).toMatchObject({ availabilityZone: AZ, status: { state: 'available' } });
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });
});
