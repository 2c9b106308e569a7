/**
 * An attach EC2 refuses because the volume itself is in a state no attach takes (IncorrectState:
 * EBS failed the volume, its state `error`, while its record still says available): the volume
 * record learns it at once from a check of the volume, and the attachment waits for the volume's
 * retry instead of spending its attempts on AttachVolume calls EC2 refuses until it ends in error.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, data1Created, harness, newAttachment, volumeOf } from './engine-fixtures.js';

describe('executor: an attach refused for the state of its volume', () => {
  it('has the volume checked at once: the volume record says error, the attachment waits for its retry', async () => {
    const h = harness();
    await data1Created(h, 10_000);
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('available');
    // EBS fails the volume; nothing has looked at it since.
    h.ebs.failVolume(volume.ebsVolumeId!);

    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.settle(10_000);

    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'VolumeError' });
    const attachment = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attachment.status.state).toBe('pending');
    expect(attachment.status.message).toMatch(/volume data-1 is in error/);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});
