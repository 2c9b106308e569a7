/**
 * A volume the executor sees become available releases its waiting attachments in the same
 * invocation. One of them written into the table so that it no longer parses is not acted on (its
 * rejection is the watcher's to write): it is left as it is, and the others attach all the same.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { OTHER_INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('executor: attachments released by a volume that became available, one of them invalid', () => {
  it('attaches the valid one at once and leaves the invalid one as it is', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { multiAttach: true, volumeType: 'io2', iops: 3000 }));
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    await h.drain();
    expect((await volumeOf(h)).status.state).toBe('creating');
    // The one listed first.
    const first = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(first.status.state).toBe('pending');
    const invalid = { ...first, status: { ...first.status, attempts: -1 } };
    h.store.putRaw(invalid);
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    await h.clock.advance(5_000);
    const batch = h.batchOf(h.op('check-volume', volumeKey('data-1')));
    expect((await h.executor.run(batch)).failedMessageIds).toEqual([]);
    expect((await volumeOf(h)).status.state).toBe('available');
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))).toMatchObject({ status: { state: 'attaching' } });
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(invalid);
    expect(h.ebs.volume((await volumeOf(h)).ebsVolumeId!)?.attachments.map((a) => a.instanceId)).toEqual([OTHER_INSTANCE]);
  });
});
