/**
 * A progress check that sees the operation still under way, as it was, writes nothing: the
 * record keeps its version, so the client's reads and writes are not raced for no change.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, harness, iopsModification, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a progress check that sees nothing new', () => {
  it('of a modification EC2 is still making writes nothing', async () => {
    const h = await iopsModification({ modify: 3_600_000, optimize: 3_600_000 });
    const before = await volumeOf(h);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).version).toBe(before.version);
  });

  it('of an attach EC2 is still making writes nothing', async () => {
    const h = harness({ ebsTimings: { attach: 3_600_000 } });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.drain();
    const before = (await h.store.get(attachmentKey('data-1')))!;
    expect(before.status.state).toBe('attaching');
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect((await h.store.get(attachmentKey('data-1')))!.version).toBe(before.version);
  });
});
