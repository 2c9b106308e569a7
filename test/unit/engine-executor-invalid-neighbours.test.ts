/**
 * Records written straight into the table may not parse: the executor leaves such a record alone,
 * and it must not fail the work of the others. An attach reads every attachment record of its
 * instance (device names held, the order of attaches waiting for one): an invalid one among them
 * must neither fail the batch (every message in it delivered again, and dead-lettered in the end)
 * nor hold up the attaches of the instance's valid records.
 */
import { describe, expect, it } from 'vitest';
import { availableVolume, attachmentKey, INSTANCE, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('executor: an invalid attachment record of the same instance', () => {
  it('fails neither the batch nor the attach: the other records of the batch are done, the attach made', async () => {
    const h = await availableVolume({});
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newVolume('data-2'));
    // Another volume's attachment to the instance, written into the table without a status.
    h.store.putRaw({ kind: 'attachment', volumeId: 'junk', instanceId: INSTANCE, life: 'alive', version: 1, device: '/dev/sdf' });
    const batch = h.batchOf(h.op('attach', attachmentKey('data-1')), h.op('create-volume', volumeKey('data-2')));

    const result = await h.executor.run(batch);

    expect(result.failedMessageIds).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(2);
    expect((await volumeOf(h, 'data-2')).status.state).toBe('creating');
    expect(h.ebs.calls.AttachVolume).toBe(1);
    const attachment = await h.store.get(attachmentKey('data-1'));
    expect(attachment?.status.state).toBe('attaching');
    // The name the invalid record holds is not handed out.
    expect(attachment).toMatchObject({ device: '/dev/sdg' });
  });

  it('of a dying volume: the batch is not failed, its other records are done', async () => {
    const h = await availableVolume({});
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    await h.store.create(newVolume('data-2'));
    h.store.putRaw({ kind: 'attachment', volumeId: 'data-1', instanceId: INSTANCE, life: 'alive', version: 1 });
    const batch = h.batchOf(h.op('delete-volume', volumeKey('data-1')), h.op('create-volume', volumeKey('data-2')));

    const result = await h.executor.run(batch);

    expect(result.failedMessageIds).toEqual([]);
    expect((await volumeOf(h, 'data-2')).status.state).toBe('creating');
    // The dying volume waits for it, and says so: nothing shows it never attached.
    expect((await volumeOf(h)).status.message).toBe('detaching 1 attachment(s) before deleting');
    expect(h.ebs.calls.DeleteVolume).toBe(0);
  });
});
