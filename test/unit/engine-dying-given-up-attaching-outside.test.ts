/**
 * A dying attachment in error that never sent AttachVolume (no device) looks at EC2 before it is
 * removed when its volume is in use: attached here outside the system, it must be detached, not
 * forgotten. EC2 still attaching it here is not "not attached": the record is left for a later
 * look, which finds it attached, records the device, and detaches it.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a dying attachment given up on before any attach, its volume attaching here outside the system', () => {
  it('is left while EC2 attaches, then recorded attached with its device and detached', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    const { ebsVolumeId } = await volumeOf(h);
    const givenUp = { state: 'error' as const, code: 'IncorrectInstanceState', message: 'the instance is stopping', attempts: 3, updatedAt: new Date(h.clock.now()).toISOString() };
    await h.store.create(newAttachment('data-1', { status: givenUp }));

    // Attached in the console; the volume's check records it in use.
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdh' });
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).status.state).toBe('in-use');

    await h.store.update<AttachmentRecord>(KEY, { life: 'dying' });
    const before = await h.store.get(KEY);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(h.ebs.volume(ebsVolumeId!)?.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, state: 'attaching' })]);
    expect(await h.store.get(KEY)).toEqual(before);

    await h.clock.advance(5_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect(await h.store.get(KEY)).toMatchObject({ device: '/dev/sdh', status: { state: 'attached', message: 'EC2 made the attach after it was given up on' } });

    await h.watch();
    await h.settle(30_000);
    expect(await h.store.get(KEY)).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)?.attachments).toEqual([]);
  });
});
