/**
 * A record the client deleted before anything was made in EC2 is removed without an EC2 call (the
 * planner's `remove`). When the message that would have removed it was lost, the reconciler sends
 * a look, and the executor then removes the record.
 */
import { describe, expect, it } from 'vitest';
import { MINUTE, reconcilerWorld, volume } from './reconciler-fixtures.js';

describe('reconciler, a record whose removal was lost', () => {
  it('a dying volume never created is nudged as pending work, and the executor then removes its record with no EC2 call', async () => {
    const { clock, store, queue, ebs, reconciler, executor } = reconcilerWorld();
    const at = new Date(clock.now()).toISOString();
    await store.create(volume('unmade', at, { life: 'dying' }));
    await clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/unmade', reason: 'work pending (never created; removed without an EC2 call)' }]);

    const batch = queue.receive(10);
    expect(batch.map((m) => m.message)).toEqual([expect.objectContaining({ op: 'check-volume', key: { kind: 'volume', volumeId: 'unmade' }, nudge: true })]);
    await executor.run(batch.map((m) => ({ messageId: m.messageId, message: m.message })));
    expect(await store.get({ kind: 'volume', volumeId: 'unmade' })).toBeUndefined();
    expect(ebs.volumes()).toEqual([]);
  });

  it('a dying attachment never attached is nudged as pending work, and the executor then removes its record with no EC2 call', async () => {
    const { clock, store, queue, ebs, reconciler, executor } = reconcilerWorld({ instances: ['i-0123456789abcdef0'] });
    const at = new Date(clock.now()).toISOString();
    await store.create(volume('data-1', at));
    await store.create({
      kind: 'attachment',
      volumeId: 'data-1',
      instanceId: 'i-0123456789abcdef0',
      life: 'dying',
      volumeCreatedAt: at,
      status: { state: 'pending', attempts: 0, updatedAt: at },
      version: 0,
      createdAt: at,
    });
    await clock.advance(10 * MINUTE);
    const key = 'attachment/data-1/i-0123456789abcdef0';
    expect((await reconciler.run()).requeued).toContainEqual({ key, reason: 'work pending (never attached; removed without an EC2 call)' });

    const batch = queue.receive(10).filter((m) => m.message.key.kind === 'attachment');
    expect(batch.map((m) => m.message)).toEqual([expect.objectContaining({ op: 'check-attachment', nudge: true })]);
    await executor.run(batch.map((m) => ({ messageId: m.messageId, message: m.message })));
    expect(await store.get({ kind: 'attachment', volumeId: 'data-1', instanceId: 'i-0123456789abcdef0' })).toBeUndefined();
    expect({ attach: ebs.calls.AttachVolume, detach: ebs.calls.DetachVolume }).toEqual({ attach: 0, detach: 0 });
  });
});
