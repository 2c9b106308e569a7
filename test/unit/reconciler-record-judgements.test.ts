import { describe, expect, it } from 'vitest';
import { type AttachmentRecord, type VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Reconciler, SCAN_RESERVE_MS } from '../../lib/engine/reconciler.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { MemoryRateBudget, RecordingLog, silentLog } from '../../lib/memory/index.js';
import { METRICS } from '../../lib/settings.js';
import { INSTANCE, attachmentKey, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld, volume } from './reconciler-fixtures.js';

const setup = reconcilerWorld;

/** Volume record `volumeId`, available and holding `ebsVolumeId`, as observed `observed` (none when undefined). */
function availableRecord(volumeId: string, ebsVolumeId: string, at: string, observed: VolumeRecord['observed'], spec: VolumeRecord['spec']): VolumeRecord {
  return volume(volumeId, at, {
    ebsVolumeId,
    availabilityZone: 'us-east-1a',
    spec,
    ...(observed ? { observed, observedGeneration: 1 } : {}),
    status: { state: 'available', attempts: 0, updatedAt: at },
  });
}

describe('Reconciler: judging records against EC2 and their volumes', () => {
  it('leaves alone an attachment whose volume record, read after it on the next page, is invalid: it waits for the record to be put right', async () => {
    const env = setup({ pageSize: 1 });
    const at = new Date(env.clock.now() - 60 * MINUTE).toISOString();
    env.store.putRaw({ kind: 'volume', volumeId: 'bad', spec: { sizeGiB: -1, volumeType: 'gp3' }, life: 'alive', generation: 1 });
    env.store.putRaw({ ...newAttachment('bad'), status: { state: 'attached', attempts: 0, updatedAt: at }, device: '/dev/sdf', createdAt: at });
    const report = await env.reconciler.run();
    // Only the volume record is looked at, for its status to say why it is invalid.
    expect(report).toMatchObject({ scanned: 2, invalid: 1, requeued: [{ key: 'volume/bad', reason: 'invalid, and its status does not say why' }] });
    expect(env.queue.pending().map((p) => p.message.key)).toEqual([volumeKey('bad')]);
  });

  it('fails the pass when the page describe fails with something that is not an EC2 error: no heartbeat, nothing sent', async () => {
    const env = setup();
    const ec2 = await env.owned('held');
    const at = new Date(env.clock.now()).toISOString();
    await env.store.create(availableRecord('held', ec2.ebsVolumeId, at, { sizeGiB: 10, volumeType: 'gp3', tags: {} }, { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' }));
    await env.store.create(volume('lost', at));
    await env.clock.advance(10 * MINUTE);
    const failure = new TypeError("Cannot read properties of undefined (reading 'Volumes')");
    env.ebs.describeVolumes = async () => {
      throw failure;
    };
    await expect(env.reconciler.run()).rejects.toThrow(failure);
    expect(env.metrics.counter(METRICS.reconcilerPasses)).toBe(0);
    expect(env.queue.pending()).toEqual([]);
  });

  it("leaves alone an attachment's pending attach while attaches wait in line for their bucket's tokens; nudges it once the line is gone", async () => {
    const budget = new MemoryRateBudget();
    const env = setup({ rateBudget: budget });
    const at = new Date(env.clock.now()).toISOString();
    const ec2 = await env.owned('ready');
    await env.store.create(availableRecord('ready', ec2.ebsVolumeId, at, { sizeGiB: 10, volumeType: 'gp3', tags: {} }, { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' }));
    await env.store.create({ ...newAttachment('ready'), status: { state: 'pending', attempts: 0, updatedAt: at }, createdAt: at });
    // A burst took the mutating actions' tokens 20 minutes ahead (an attach asked for now would wait that long).
    const attachBudget = DEFAULT_ENGINE_CONFIG.accountRateBudgets.AttachVolume;
    await budget.take('AttachVolume', attachBudget.burst + 20 * 60 * attachBudget.ratePerSecond, attachBudget, env.clock.now(), 3_600_000);
    await env.clock.advance(10 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([]);
    await env.clock.advance(11 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: `attachment/ready/${INSTANCE}`, reason: 'work pending (volume ready)' }]);
  });

  it('notices an attachment EC2 shows busy under another device name: the record names the device EC2 shows', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 30 && (await h.store.get(attachmentKey('data-1')))?.status.state !== 'attached'; i++) {
      await h.watch();
      await h.settle(1000);
    }
    await h.watch();
    await h.settle(5000);
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attached.status.state).toBe('attached');
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    const describe = h.ebs.describeVolumes.bind(h.ebs);
    h.ebs.describeVolumes = async (ids) =>
      (await describe(ids)).map((v) => ({ ...v, attachments: v.attachments.map((a) => ({ ...a, state: 'busy' as const, device: '/dev/sdk' })) }));
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([
      { key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE} as /dev/sdk, the record says ${attached.device}` },
    ]);
  });

  it('names a provisioned figure EC2 reports for a changed type that the other type has none of', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    // io1 changed to gp2 in the console (gp2's IOPS are not compared), and gp2 changed to io1.
    const toGp2 = await env.owned('to-gp2', { sizeGiB: 100, volumeType: 'gp2' });
    const toIo1 = await env.owned('to-io1', { sizeGiB: 100, volumeType: 'io1', iops: 3000 });
    await env.store.create(availableRecord('to-gp2', toGp2.ebsVolumeId, at, { sizeGiB: 100, volumeType: 'io1', iops: 3000, tags: {} }, { sizeGiB: 100, volumeType: 'io1', iops: 3000, availabilityZone: 'us-east-1a' }));
    await env.store.create(availableRecord('to-io1', toIo1.ebsVolumeId, at, { sizeGiB: 100, volumeType: 'gp2', tags: {} }, { sizeGiB: 100, volumeType: 'gp2', availabilityZone: 'us-east-1a' }));
    await env.clock.advance(10 * MINUTE);
    const reasons = Object.fromEntries((await env.reconciler.run()).requeued.map((r) => [r.key, r.reason]));
    expect(reasons).toEqual({
      'volume/to-gp2': 'EC2 reports volumeType gp2 (the record observed io1), iops none (the record observed 3000)',
      'volume/to-io1': 'EC2 reports volumeType io1 (the record observed gp2), iops 3000 (the record observed none)',
    });
  });

  it('has a volume whose record never observed its EC2 volume (written before observations were) looked at for what EC2 holds, not judged drifted', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    const ec2 = await env.owned('old', { sizeGiB: 20, volumeType: 'gp2' });
    await env.store.create(availableRecord('old', ec2.ebsVolumeId, at, undefined, { sizeGiB: 20, volumeType: 'gp2', availabilityZone: 'us-east-1a' }));
    await env.clock.advance(10 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([
      { key: 'volume/old', reason: 'work pending (volume available; looking at what EC2 holds, which the record does not say)' },
    ]);
  });

  it('has a volume whose record never noted the generation EC2 holds (written before observedGeneration was) looked at, saying so', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    const ec2 = await env.owned('unnoted');
    const { observedGeneration: _none, ...record } = availableRecord('unnoted', ec2.ebsVolumeId, at, { sizeGiB: 10, volumeType: 'gp3', tags: {} }, { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' });
    await env.store.create(record);
    await env.clock.advance(10 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/unnoted', reason: 'EC2 already holds the spec of generation 1; observedGeneration is unset' }]);
  });

  it('looks at once at a record whose status time is none (a record written without a status): nothing says it is recent', async () => {
    const env = setup();
    const { status: _status, ...withoutStatus } = volume('written', new Date(env.clock.now()).toISOString());
    env.store.putRaw(withoutStatus);
    await env.store.create(volume('recent', new Date(env.clock.now()).toISOString()));
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/written', reason: expect.stringMatching(/^work pending/) }]);
  });

  it('says a modification written without the time it began is under way since its status was written', async () => {
    const env = setup();
    const written = '2026-02-28T00:05:00.000Z';
    await env.store.create(
      volume('growing', written, {
        ebsVolumeId: 'vol-00000000000000abc',
        availabilityZone: 'us-east-1a',
        observed: { sizeGiB: 10, volumeType: 'gp3', tags: {} },
        observedGeneration: 1,
        status: { state: 'modifying', attempts: 0, updatedAt: written },
      }),
    );
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/growing', reason: `modification under way since ${written}; looked at once per pass` }]);
  });

  it('calls the leak check complete in its warning when only the scan ran out of time', async () => {
    const log = new RecordingLog();
    const env = setup({ log });
    await env.owned('somewhere');
    const report = await env.reconciler.run({ remainingTimeMs: SCAN_RESERVE_MS - 1 });
    expect(report).toMatchObject({ segments: { done: 0 }, leakCheckComplete: true });
    expect(log.entries.find((entry) => entry.message === 'reconciler pass ran out of time; the next passes take up the rest')?.attributes).toMatchObject({ leakCheck: 'complete' });
  });

  it('says in its warning that EC2 failed the listing when the scan ran out of time and the listing failed', async () => {
    const log = new RecordingLog();
    const env = setup({ log });
    env.ebs.listOwnedVolumes = async () => {
      throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    };
    const report = await env.reconciler.run({ remainingTimeMs: SCAN_RESERVE_MS - 1 });
    expect(report).toMatchObject({ segments: { done: 0 }, leakCheckComplete: false });
    expect(log.entries.find((entry) => entry.message === 'reconciler pass ran out of time; the next passes take up the rest')?.attributes).toMatchObject({
      leakCheck: 'EC2 failed the listing after 0 owned volumes',
    });
  });
});
