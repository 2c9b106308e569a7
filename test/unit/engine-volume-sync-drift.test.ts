/**
 * A size, type or performance changed outside the system that an attachment's check sees: the
 * check brings the volume record in line with the same DescribeVolumes answer (no check of the
 * volume of its own), and the drift then gets what the volume's own check would give it, without
 * waiting for the reconciler: the modification back to the spec at once, nothing for a grow the
 * spec cannot follow (the status says why), and nothing before a failed attempt's retry is due.
 */
import { describe, expect, it } from 'vitest';
import { provisionedPerformance } from '../../lib/domain/ebs-limits.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachmentKey, availableVolume, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;

type Harness = Awaited<ReturnType<typeof availableVolume>>;

/** A modification made in the console (`change`), completed, then an attachment of the volume written and carried out up to its check. */
async function changedOutsideThenAttached(change: { sizeGiB?: number; volumeType?: 'gp2' | 'gp3'; iops?: number }): Promise<{ h: Harness; ebsVolumeId: string; modifies: number }> {
  const h = await availableVolume({ team: 'a' });
  const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
  await h.ebs.modifyVolume({ ebsVolumeId, ...change });
  const modifies = h.ebs.calls.ModifyVolume;
  await h.clock.advance(MINUTE);
  await attach(h);
  return { h, ebsVolumeId, modifies };
}

/**
 * An attachment of data-1 written, its attach made and its check delivered when due (the check
 * that brings the volume record in line); what that check queues is left in the queue.
 */
async function attach(h: Harness): Promise<void> {
  await h.store.create(newAttachment('data-1'));
  await h.watch();
  await h.drain();
  await h.clock.advance(10_000);
  const received = h.queue.receive(100);
  expect(received.map((r) => r.message.op)).toEqual(['check-attachment']);
  await h.executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
  for (const r of received) h.queue.delete(r.receiptHandle);
  await h.watch();
  expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
}

/**
 * data-1 (tagged team=a) available on a harness whose backoffs last minutes; the client raises its
 * IOPS to 5000 and EC2 fails that ModifyVolume once, so its retry waits out a backoff.
 */
async function failedModification(): Promise<{ h: Harness; ebsVolumeId: string; retryAt: number; modifyVolume: Harness['ebs']['modifyVolume'] }> {
  const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 }, config: { backoff: { baseSeconds: 240, capSeconds: 900 } } });
  await h.store.create(newVolume('data-1', {}, { tags: { team: 'a' } }));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  const ebsVolumeId = (await volumeOf(h)).ebsVolumeId!;
  const modifyVolume = h.ebs.modifyVolume.bind(h.ebs);
  h.ebs.modifyVolume = async () => {
    h.ebs.modifyVolume = modifyVolume;
    throw new ProviderError('transient', 'InternalError', 'EC2 failed');
  };
  await h.store.update<VolumeRecord>(KEY, { spec: { ...(await volumeOf(h)).spec, iops: 5000 }, generation: 2 });
  await h.watch();
  await h.drain();
  const failed = await volumeOf(h);
  expect(failed.status).toMatchObject({ state: 'available', attempts: 1, code: 'InternalError' });
  return { h, ebsVolumeId, retryAt: Date.parse(failed.status.nextAttemptAt!), modifyVolume };
}

describe("a volume changed outside the system, seen by an attachment's check", () => {
  it('given other IOPS: the modification back to the spec is queued at once and made, with no reconciler pass', async () => {
    const { h, ebsVolumeId, modifies } = await changedOutsideThenAttached({ iops: 4000 });
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'in-use' }, observed: { iops: 4000 } });
    expect(h.queued()).toContainEqual({ op: 'modify-volume', key: 'data-1', delaySeconds: 0 });

    await h.settle(MINUTE);
    await h.watch();
    expect(provisionedPerformance(h.ebs.volume(ebsVolumeId)!)).toEqual({ iops: 3000, throughput: 125 });
    const putBack = await volumeOf(h);
    expect(provisionedPerformance(putBack.observed!)).toEqual({ iops: 3000, throughput: 125 });
    expect(putBack).toMatchObject({ status: { state: 'in-use' }, observedGeneration: 1 });
    expect(putBack.status.code).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(1);
  });

  it('given another type: put back to gp3 the same way', async () => {
    const { h, ebsVolumeId, modifies } = await changedOutsideThenAttached({ volumeType: 'gp2' });
    expect((await volumeOf(h)).observed?.volumeType).toBe('gp2');
    expect(h.queued()).toContainEqual({ op: 'modify-volume', key: 'data-1', delaySeconds: 0 });

    await h.settle(MINUTE);
    await h.watch();
    expect(h.ebs.volume(ebsVolumeId)?.volumeType).toBe('gp3');
    expect((await volumeOf(h)).observed?.volumeType).toBe('gp3');
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(1);
  });

  it('grown: the status says why the spec cannot be met, as after a check of the volume, and nothing is queued for it', async () => {
    const { h, modifies } = await changedOutsideThenAttached({ sizeGiB: 50 });
    expect((await volumeOf(h)).status).toMatchObject({ state: 'in-use', code: 'InvalidSpecChange', message: 'spec.sizeGiB: EBS volumes can only grow: 50 GiB cannot become 10 GiB' });
    expect(h.queued().filter((m) => m.key === 'data-1')).toEqual([]);
    await h.settle(MINUTE);
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
  });

  it("a client's change EC2 does not hold yet, its message still queued: the check sends none beside it", async () => {
    const h = await availableVolume({ team: 'a' });
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.drain();
    await h.store.update<VolumeRecord>(KEY, { spec: { ...(await volumeOf(h)).spec, iops: 5000 }, generation: 2 });
    await h.watch();
    expect(h.queued()).toEqual([
      { op: 'check-attachment', key: 'data-1/i-0123456789abcdef0', delaySeconds: expect.any(Number) },
      { op: 'modify-volume', key: 'data-1', delaySeconds: 0 },
    ]);

    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'in-use' }, observed: { iops: 3000 } });
    expect(h.queued().filter((m) => m.key === 'data-1')).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: -10 }]);
  });

  it("while a failed ModifyVolume waits out its backoff: nothing is queued beside that attempt's retry, which puts the volume back to the spec", async () => {
    const { h, ebsVolumeId, retryAt, modifyVolume } = await failedModification();
    const failed = await volumeOf(h);

    // Meanwhile IOPS are changed in the console, and an attachment's check sees it.
    await modifyVolume({ ebsVolumeId, iops: 4000 });
    const modifies = h.ebs.calls.ModifyVolume;
    await h.clock.advance(5_000);
    await attach(h);
    expect(h.clock.now()).toBeLessThan(retryAt);
    expect(await volumeOf(h)).toMatchObject({ status: { attempts: 1, nextAttemptAt: failed.status.nextAttemptAt }, observed: { iops: 4000 } });
    expect(h.queued().filter((m) => m.key === 'data-1' && m.op === 'modify-volume' && m.delaySeconds === 0)).toEqual([]);

    await h.drain();
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
    await h.settle(retryAt - h.clock.now() + MINUTE);
    await h.watch();
    expect(h.ebs.volume(ebsVolumeId)?.iops).toBe(5000);
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(1);
  });

  it('while a failed ModifyVolume waits out its backoff, tags changed in the console: put back by that retry, with the modification, not before', async () => {
    const { h, ebsVolumeId, retryAt } = await failedModification();
    const modifies = h.ebs.calls.ModifyVolume;
    const ownership = Object.fromEntries(Object.entries(h.ebs.volume(ebsVolumeId)!.tags).filter(([key]) => key !== 'team'));
    h.ebs.retagBehindBack(ebsVolumeId, { ...ownership, team: 'x' });
    await attach(h);
    expect((await volumeOf(h)).observed?.tags).toEqual({ team: 'x' });

    await h.drain();
    expect(h.clock.now()).toBeLessThan(retryAt);
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, ModifyVolume: modifies });
    await h.settle(retryAt - h.clock.now() + MINUTE);
    await h.watch();
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ iops: 5000, tags: { ...ownership, team: 'a' } });
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, ModifyVolume: modifies + 1 });
  });
});
