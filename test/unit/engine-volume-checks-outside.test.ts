/**
 * What a check finds of a volume changed outside the system while the provisioner worked on it:
 * attached in the console before the check saw its creation end, removed by EC2 while a dying
 * record's creation was under way, and, seen by an attachment's check, in use while another
 * invocation holds the volume record (left to that one and to the volume's own check).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe('executor: a check of a volume changed outside the system', () => {
  it('a volume attached in the console before the check saw its creation end is recorded in use', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    const { ebsVolumeId } = await volumeOf(h);
    expect((await volumeOf(h)).status.state).toBe('creating');

    await h.clock.advance(5_000);
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdh' });
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'in-use', attempts: 0 });
    expect(volume.status.code).toBeUndefined();
    expect(volume.observed).toMatchObject({ sizeGiB: 10, volumeType: 'gp3' });
  });

  it('a dying volume EC2 removed while creating it says nothing is left to delete, and the record goes without a DeleteVolume', async () => {
    const h = harness({ ebsTimings: { create: 10 * 60_000 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    const { ebsVolumeId } = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { life: 'dying' });
    h.ebs.deleteBehindBack(ebsVolumeId!);

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1_000);
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
    expect(volume.status.message).toMatch(new RegExp(`^EC2 removed volume ${ebsVolumeId} while creating it; .*; nothing is left to delete$`));
    expect(volume.ebsVolumeId).toBeUndefined();

    await h.watch();
    await h.settle(60_000);
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(0);
  });

  it("an attachment's check does not write a volume record another invocation holds: the volume's own check brings it in line once that claim ends", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attaching' } });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    await h.clock.advance(5_000);
    expect((await h.store.claim(KEY, 'another-invocation', h.clock.now(), DEFAULT_ENGINE_CONFIG.claimLeaseMs)).ok).toBe(true);
    const held = await volumeOf(h);
    expect(held.status.state).toBe('available');
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
    expect(await volumeOf(h)).toEqual(held);
    expect(h.queued()).toContainEqual({ op: 'check-volume', key: 'data-1', delaySeconds: 0 });

    await h.store.release(KEY, 'another-invocation');
    await h.drain();
    expect((await volumeOf(h)).status.state).toBe('in-use');
  });
});
