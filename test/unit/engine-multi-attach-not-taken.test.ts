/**
 * An AttachVolume EC2 accepted and did not carry out, to a Multi-Attach volume that another
 * instance holds: the attach did not take, and a failed attempt retries it. The status does not
 * blame the other instance, which a Multi-Attach volume may be attached to at the same time; it
 * does once EC2 describes the volume single-attach (Multi-Attach turned off in the console).
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, harness, newAttachment, newVolume, providerOver, volumeOf, attachmentOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: an attach to a volume created Multi-Attach that did not take', () => {
  it('is a failed attempt saying the attach did not take, not that the volume is attached elsewhere instead; its retry attaches it', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { multiAttach: true, volumeType: 'io2', iops: 3000 }));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(30_000);
    }
    expect((await attachmentOf(h, 'data-1', OTHER_INSTANCE)).status.state).toBe('attached');
    const { ebsVolumeId } = await volumeOf(h);
    h.changes.length = 0;
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));

    // EC2 accepts the AttachVolume to this instance and makes nothing of it.
    const provider = providerOver(h.ebs, { attachVolume: async () => undefined });
    const accepting = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.store.create(newAttachment('data-1'));
    await accepting.run(h.batchOf(h.op('attach', KEY)));
    expect((await attachmentOf(h)).status.state).toBe('attaching');

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    const failed = await attachmentOf(h);
    expect(failed.status).toMatchObject({ state: 'pending', code: 'AttachmentNotFound', message: 'the attach did not take', attempts: 1 });

    await h.clock.advance(Date.parse(failed.status.nextAttemptAt!) - h.clock.now());
    await h.watch();
    await h.settle(60_000);
    expect((await attachmentOf(h)).status.state).toBe('attached');
    expect(h.ebs.volume(ebsVolumeId!)?.attachments.map((a) => [a.instanceId, a.state]).sort()).toEqual([
      [INSTANCE, 'attached'],
      [OTHER_INSTANCE, 'attached'],
    ].sort());
  });

  it('Multi-Attach turned off in the console since: the status names the instance EC2 holds the volume attached to instead', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { multiAttach: true, volumeType: 'io2', iops: 3000 }));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    for (let i = 0; i < 3; i++) {
      await h.watch();
      await h.settle(30_000);
    }
    expect((await attachmentOf(h, 'data-1', OTHER_INSTANCE)).status.state).toBe('attached');

    // EC2 describes the volume single-attach now, and accepts the AttachVolume to this instance without making it.
    const provider = providerOver(h.ebs, {
      attachVolume: async () => undefined,
      describeVolumes: async (ids) => (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, multiAttach: false })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.store.create(newAttachment('data-1'));
    await executor.run(h.batchOf(h.op('attach', KEY)));
    expect((await attachmentOf(h)).status.state).toBe('attaching');

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 1_000);
    await executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'pending', code: 'AttachmentNotFound', message: `volume is attached to ${OTHER_INSTANCE} instead`, attempts: 1 });
  });
});
