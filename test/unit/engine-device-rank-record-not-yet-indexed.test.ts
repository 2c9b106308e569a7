/**
 * An attach whose own record the instance's index does not show yet (the index lags a new record)
 * is named its device after the attaches the index does show, whatever order the batch holds them in.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe('an attach its instance index does not list yet', () => {
  it('comes after the attaches the index lists, even first in its batch', async () => {
    const h = harness();
    for (const id of ['data-a', 'data-b']) await h.store.create(newVolume(id));
    await settleAll(h);
    const read = h.store.attachmentsOfInstance.bind(h.store);
    h.store.attachmentsOfInstance = async (instanceId) => (await read(instanceId)).filter((a) => a.volumeId !== 'data-a');
    await h.store.create(newAttachment('data-a'));
    await h.store.create(newAttachment('data-b'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-a')), h.op('attach', attachmentKey('data-b'))));
    const devices = await Promise.all(['data-a', 'data-b'].map(async (id) => ((await h.store.get(attachmentKey(id))) as AttachmentRecord).device));
    expect(devices).toEqual(['/dev/sdg', '/dev/sdf']);
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });
});
