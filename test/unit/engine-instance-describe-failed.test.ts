/**
 * Steps that need an instance described: an attach (is the instance there, running, in the
 * volume's AZ; which device names it holds) and the create of a volume placed by its instance
 * (which AZ). When DescribeInstances fails, nothing is called: a failed attempt, retried after its
 * backoff. When the instance's attachment records cannot be read, the attach still goes ahead on
 * EC2's description of the instance.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { AZ, INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const DESCRIBE_DOWN = new ProviderError('transient', 'InternalError', 'EC2 had an internal error');

async function attachmentOf(h: ReturnType<typeof harness>): Promise<AttachmentRecord | undefined> {
  return (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord | undefined;
}

async function availableVolume(): Promise<ReturnType<typeof harness>> {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.watch();
  await h.settle(10_000);
  expect((await volumeOf(h)).status.state).toBe('available');
  return h;
}

describe('executor: DescribeInstances failing', () => {
  it('holds back an attach: no AttachVolume, no device; the retry attaches', async () => {
    const h = await availableVolume();
    await h.store.create(newAttachment('data-1'));
    h.ebs.failNext('DescribeInstances', DESCRIBE_DOWN);
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(h.ebs.calls.AttachVolume).toBe(0);
    const failed = await attachmentOf(h);
    expect(failed?.status).toMatchObject({ state: 'pending', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(failed?.device).toBeUndefined();

    await h.settle(120_000);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h))?.status).toMatchObject({ state: 'attached', attempts: 0 });
  });

  it('holds back the create of a volume placed by its instance: no CreateVolume, no AZ; the retry creates it in the instance\'s AZ', async () => {
    const h = harness();
    const { availabilityZone: _placedByInstance, ...spec } = newVolume('data-1').spec;
    await h.store.create({ ...newVolume('data-1'), spec: { ...spec, placementInstanceId: INSTANCE } });
    h.ebs.failNext('DescribeInstances', DESCRIBE_DOWN);
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));

    expect(h.ebs.calls.CreateVolume).toBe(0);
    const failed = await volumeOf(h);
    expect(failed.status).toMatchObject({ state: 'pending', code: 'InternalError', attempts: 1, nextAttemptAt: expect.any(String) });
    expect(failed.availabilityZone).toBeUndefined();
    expect(failed.createRequest).toBeUndefined();

    await h.settle(120_000);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    const created = await volumeOf(h);
    expect(created).toMatchObject({ status: { state: 'available', attempts: 0 }, availabilityZone: AZ });
    expect(h.ebs.volume(created.ebsVolumeId!)?.availabilityZone).toBe(AZ);
  });
});

describe("executor: an attach whose instance's attachment records cannot be read", () => {
  it('attaches all the same, on a device name EC2 does not show held on the instance', async () => {
    const h = await availableVolume();
    await h.store.create(newAttachment('data-1'));
    h.store.failNext('attachmentsOfInstance', new Error('DynamoDB unavailable'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(h.ebs.calls.AttachVolume).toBe(1);
    const attaching = await attachmentOf(h);
    expect(attaching?.status.state).toBe('attaching');
    expect(attaching?.device).toMatch(/^\/dev\/(sd|xvd)[f-p]$/);
    expect(attaching?.device).not.toBe('/dev/xvda');
    await h.settle(30_000);
    const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, device: attaching?.device, state: 'attached' })]);
    expect((await attachmentOf(h))?.status.state).toBe('attached');
  });
});
