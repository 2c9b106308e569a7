import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { AZ, attachmentKey, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';

const instanceOf = (index: number) => `i-000000000000000a${index % 4}`;

describe('lifecycle through watcher and executor', () => {
  it('100 volumes: created, attached, detached and deleted with one EC2 call each and batched describes', async () => {
    const h = harness();
    for (let n = 0; n < 4; n++) h.ebs.addInstance({ instanceId: instanceOf(n), availabilityZone: AZ, maxAttachments: 40 });
    const ids = Array.from({ length: 100 }, (_, i) => `v${i}`);
    for (const id of ids) await h.store.create(newVolume(id));
    for (const [i, id] of ids.entries()) await h.store.create(newAttachment(id, { instanceId: instanceOf(i) }));

    for (let second = 0; second < 120; second++) {
      await h.watch();
      await h.settle(1000);
    }
    const attachments = await Promise.all(ids.map((id, i) => h.store.get(attachmentKey(id, instanceOf(i)))));
    expect(attachments.filter((a) => a?.status.state === 'attached')).toHaveLength(100);
    const devices = new Set(attachments.map((a, i) => `${instanceOf(i)} ${a?.kind === 'attachment' ? a.device : ''}`));
    expect(devices.size).toBe(100);
    expect(h.ebs.calls.CreateVolume).toBe(100);
    expect(h.ebs.calls.AttachVolume).toBe(100);
    expect(h.ebs.calls.DescribeVolumes).toBeLessThan(40);
    expect(h.ebs.calls.DescribeInstances).toBeLessThan(15);

    for (const id of ids) await h.store.update<VolumeRecord>(volumeKey(id), { life: 'dying' });
    for (let second = 0; second < 200; second++) {
      await h.watch();
      await h.settle(1000);
    }
    expect(h.store.all()).toEqual([]);
    expect(h.ebs.volumes()).toEqual([]);
    expect(h.ebs.calls.DetachVolume).toBe(100);
    expect(h.ebs.calls.DeleteVolume).toBe(100);
    expect(h.queue.deadLetters()).toEqual([]);
  });

  it('a client retry after a terminal error starts over from the current state', async () => {
    const h = harness({ config: { maxAttempts: 1 } });
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'boom'));
    await h.watch();
    await h.settle(10_000);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InternalError' });

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await h.watch();
    await h.settle(30_000);
    const volume = await h.store.get(volumeKey('data-1'));
    expect(volume?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(h.ebs.volumes()).toHaveLength(1);
  });
});
