/**
 * Records written straight into the table (not through the API), as a person with the DynamoDB
 * console or a script may: the watcher and the executor must never act on EC2 for a record with
 * what belongs to another record, nor leave a record waiting for ever behind a false reason.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { silentLog } from '../../lib/memory/log.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { attachmentKey, AZ, harness, INSTANCE, newAttachment, newVolume, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

/** Runs the watcher and the executor until the pipeline is quiet, the clock moving on. */
/**
 * Volume record data-1 made (attached to INSTANCE when `attached`), then its item duplicated in
 * the table under data-2 as the console's "duplicate item" does: the whole item under a new key,
 * the system's fields (EC2 volume id, CreateVolume request) with it; with `attached`, its
 * attachment item too. Returns data-1 as it was copied.
 */
async function copiedVolume(h: ReturnType<typeof harness>, options: { attached?: boolean } = {}): Promise<VolumeRecord> {
  await h.store.create(newVolume('data-1'));
  if (options.attached) await h.store.create(newAttachment('data-1'));
  await settleAll(h);
  const original = await volumeOf(h, 'data-1');
  expect(original).toMatchObject({ status: { state: options.attached ? 'in-use' : 'available' }, ebsVolumeId: expect.any(String) });
  h.store.putRaw({ ...original, volumeId: 'data-2' });
  if (options.attached) {
    const attached = await h.store.get(attachmentKey('data-1'));
    expect(attached).toMatchObject({ status: { state: 'attached' } });
    h.store.putRaw({ ...attached!, volumeId: 'data-2' });
  }
  return original;
}

describe("volume records copied in the table act on no other record's volume", () => {
  it("the copy deleted leaves the original's EC2 volume alone", async () => {
    const h = harness();
    const { ebsVolumeId } = await copiedVolume(h);
    await settleAll(h);
    // The client deletes the copy (DELETE /volumes/data-2 marks it dying).
    await h.store.update(volumeKey('data-2'), { life: 'dying' });
    await settleAll(h);

    // data-1's volume is data-1's: nothing deletes it but data-1's own delete.
    expect(h.ebs.volume(ebsVolumeId!)?.state).toBe('available');
    expect(h.ebs.calls.DeleteVolume).toBe(0);
    expect(await h.store.get(volumeKey('data-2'))).toBeUndefined();
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available' }, ebsVolumeId });
  });

  it("the copy grown or retagged leaves the original's EC2 volume alone, and says why", async () => {
    const h = harness();
    const original = await copiedVolume(h);
    await settleAll(h);
    // The client asks the copy for more (as PATCH /volumes/data-2 would).
    await h.store.update<VolumeRecord>(volumeKey('data-2'), { spec: { ...original.spec, sizeGiB: 20, tags: { team: 'b' } }, generation: 2 });
    await settleAll(h);

    expect(h.ebs.calls.ModifyVolume).toBe(0);
    expect(h.ebs.calls.CreateTags).toBe(0);
    expect(h.ebs.volume(original.ebsVolumeId!)).toMatchObject({ sizeGiB: 10 });
    expect((await volumeOf(h, 'data-2')).status).toMatchObject({ state: 'error', message: expect.stringContaining('data-1') });
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available' }, ebsVolumeId: original.ebsVolumeId });
  });

  it('an attachment of the copy is not attached: it ends in error naming the record the volume belongs to, and the original\'s volume stays unattached', async () => {
    const h = harness();
    const { ebsVolumeId } = await copiedVolume(h);
    await h.store.create(newAttachment('data-2'));
    await settleAll(h);

    expect(h.ebs.calls.AttachVolume).toBe(0);
    expect(h.ebs.volume(ebsVolumeId!)!.attachments).toEqual([]);
    const attachment = await h.store.get(attachmentKey('data-2'));
    expect(attachment).toMatchObject({ status: { state: 'error', code: 'VolumeOfAnotherRecord', message: expect.stringContaining('volume record data-1') } });
    expect(attachment).not.toHaveProperty('device');
  });

  it("the copy and its copied attachment, deleted, are removed without detaching the original's volume from its instance", async () => {
    const h = harness();
    const { ebsVolumeId } = await copiedVolume(h, { attached: true });
    await settleAll(h);
    // The copy deleted, its attachment first, as DELETE does.
    await h.store.update(attachmentKey('data-2'), { life: 'dying' });
    await h.store.update(volumeKey('data-2'), { life: 'dying' });
    await settleAll(h);

    expect(h.ebs.calls.DetachVolume).toBe(0);
    expect(h.ebs.calls.DeleteVolume).toBe(0);
    expect(h.ebs.volume(ebsVolumeId!)!.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'attached' }]);
    expect(await h.store.get(attachmentKey('data-2'))).toBeUndefined();
    expect(await h.store.get(volumeKey('data-2'))).toBeUndefined();
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
  });
});

/**
 * An EC2 volume this deployment did not create, in the EC2 view the engine has: another
 * deployment's (its owner tag another value, its record tag naming a record of the same id), or
 * one without ownership tags (made outside the system). Then volume record data-1 written straight
 * into the table naming it, as if it were its own, with no CreateVolume request of its own.
 */
async function foreignVolumeNamed(h: ReturnType<typeof harness>, tags: Record<string, string>): Promise<string> {
  const { ebsVolumeId } = await h.ebs.createVolume({ clientToken: 'outside', availabilityZone: AZ, spec: { sizeGiB: 10, volumeType: 'gp3' }, tags });
  await h.clock.advance(10_000);
  const at = new Date(h.clock.now()).toISOString();
  h.store.putRaw(
    newVolume('data-1', {
      ebsVolumeId,
      availabilityZone: AZ,
      observed: { sizeGiB: 10, volumeType: 'gp3', tags: { team: 'theirs' } },
      observedGeneration: 1,
      status: { state: 'available', attempts: 0, updatedAt: at },
      createdAt: at,
    }, { tags: { team: 'theirs' } }),
  );
  return ebsVolumeId;
}

const FOREIGN_VOLUMES: Array<[string, Record<string, string>]> = [
  ["another deployment's", { [OWNERSHIP_TAGS.owner]: 'another-stack', [OWNERSHIP_TAGS.record]: 'data-1', team: 'theirs' }],
  ['one made outside the system', { team: 'theirs' }],
];

describe.each(FOREIGN_VOLUMES)("volume records written in the table naming an EC2 volume this deployment did not create (%s) act on it in no way", (_kind, tags) => {
  it('deleted: the record goes, the EC2 volume stays', async () => {
    const h = harness();
    const ebsVolumeId = await foreignVolumeNamed(h, tags);
    await settleAll(h);
    await h.store.update(volumeKey('data-1'), { life: 'dying' });
    await settleAll(h);

    expect(h.ebs.calls.DeleteVolume).toBe(0);
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ state: 'available', tags });
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it('grown or retagged: no ModifyVolume or tag call, and the record says why', async () => {
    const h = harness();
    const ebsVolumeId = await foreignVolumeNamed(h, tags);
    await settleAll(h);
    const record = await volumeOf(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...record.spec, sizeGiB: 20, tags: { team: 'ours' } }, generation: 2 });
    await settleAll(h);

    expect(h.ebs.calls.ModifyVolume).toBe(0);
    expect(h.ebs.calls.CreateTags).toBe(0);
    expect(h.ebs.calls.DeleteTags ?? 0).toBe(0);
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ sizeGiB: 10, tags });
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({
      state: 'error',
      code: 'VolumeNotOwned',
      message: expect.stringContaining(`${ebsVolumeId}, an EC2 volume this deployment did not create`),
    });
  });

  it('attached: no AttachVolume, the attachment ends in error saying why', async () => {
    const h = harness();
    const ebsVolumeId = await foreignVolumeNamed(h, tags);
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);

    expect(h.ebs.calls.AttachVolume).toBe(0);
    expect(h.ebs.volume(ebsVolumeId)!.attachments).toEqual([]);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'VolumeNotOwned' } });
  });

  it('detached: the attachment record goes, the EC2 volume stays attached where it is', async () => {
    const h = harness();
    const ebsVolumeId = await foreignVolumeNamed(h, tags);
    await h.ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await h.clock.advance(10_000);
    const at = new Date(h.clock.now()).toISOString();
    h.store.putRaw(newAttachment('data-1', { status: { state: 'attached', attempts: 0, updatedAt: at }, device: '/dev/sdf', createdAt: at }));
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await settleAll(h);

    expect(h.ebs.calls.DetachVolume).toBe(0);
    expect(h.ebs.volume(ebsVolumeId)!.attachments).toMatchObject([{ instanceId: INSTANCE, state: 'attached' }]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });
});

describe('attachment records removed from the table and written again', () => {
  /** Removes the attachment straight from the table (no detach: EC2 keeps the volume attached), then writes it again. */
  async function removeAndWriteAgain(h: ReturnType<typeof harness>, volumeId: string): Promise<void> {
    await h.store.remove(attachmentKey(volumeId));
    await settleAll(h);
    h.store.putRaw(newAttachment(volumeId, { createdAt: new Date(h.clock.now()).toISOString() }));
    await settleAll(h);
  }

  it('an attachment removed straight from the table while attached and written again under the same key is taken up as attached, not left waiting for a detach from "its other instance"', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdf' });

    await removeAndWriteAgain(h, 'data-1');
    // The reconciler's passes too.
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    for (let pass = 0; pass < 3; pass++) {
      await h.clock.advance(300_000);
      await reconciler.run({});
      await settleAll(h, 2);
    }

    const attachment = await h.store.get(attachmentKey('data-1'));
    // The volume is attached to this very instance: no other instance holds it.
    expect(attachment?.status.message ?? '').not.toMatch(/other instance/);
    expect(attachment).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdf' });
  });

  it('written again while another attachment of the volume failed before any attach (in error, no device): it is still taken up as attached, the failed one holding nothing', async () => {
    const h = harness();
    const elsewhere = 'i-0aaaaaaaaaaaaaaa3';
    h.ebs.addInstance({ instanceId: elsewhere, availabilityZone: 'eu-west-1b' });
    await h.store.create(newVolume('data-1'));
    // An attachment to an instance in another AZ fails for good before any AttachVolume: no device.
    await h.store.create(newAttachment('data-1', { instanceId: elsewhere }));
    await settleAll(h);
    const failed = await h.store.get(attachmentKey('data-1', elsewhere));
    expect(failed).toMatchObject({ status: { state: 'error', code: 'InvalidVolume.ZoneMismatch' } });
    expect(failed).not.toHaveProperty('device');
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdf' });

    await removeAndWriteAgain(h, 'data-1');

    const attachment = await h.store.get(attachmentKey('data-1'));
    expect(attachment?.status.message ?? '').not.toMatch(/other instance/);
    expect(attachment).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdf' });
  });
});

describe('system-owned fields written straight into the table', () => {
  it('a record written with a claim whose lease ends far beyond any the system takes is not left pending for ever without a word: it is rejected naming the claim, with no EC2 call', async () => {
    const h = harness();
    // The system's claims last minutes (`claimLeaseMs`); this one ends in the year 33658.
    h.store.putRaw({ ...newVolume('data-1'), claim: { owner: 'someone', expiresAt: 1e15 } });
    await settleAll(h);
    await h.clock.advance(3_600_000);
    await settleAll(h);
    const record = await volumeOf(h, 'data-1');
    expect(record.status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^claim\.expiresAt: ends at /) });
    expect(h.ebs.calls.CreateVolume).toBe(0);

    // Its client removes the claim: the record is taken up.
    const { claim: _claim, ...putRight } = record;
    h.store.putRaw(putRight);
    await settleAll(h);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
  });

  it('a record written with the time of a ModifyVolume sent a day ahead is rejected naming it, with no EC2 call; a time a few seconds ahead (another function\'s clock) is taken up', async () => {
    const h = harness();
    const ahead = new Date(h.clock.now() + 24 * 3_600_000).toISOString();
    h.store.putRaw({ ...newVolume('data-1'), modificationSentAt: ahead });
    h.store.putRaw({ ...newVolume('data-2'), status: { state: 'pending', attempts: 0, updatedAt: new Date(h.clock.now() + 30_000).toISOString() } });
    await settleAll(h);
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^modificationSentAt: /) });
    expect(await volumeOf(h, 'data-2')).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });

  it('an attachment written as attaching before its volume is created keeps the retry its status names: it attaches once the volume is available, not after the reconciler', async () => {
    const h = harness();
    h.store.putRaw({ ...newAttachment('data-1'), status: { state: 'attaching', attempts: 0, updatedAt: '' } });
    await h.store.create(newVolume('data-1'));
    // Its check finds no volume attached: pending, with a next attempt, while the volume is still being created.
    await settleAll(h);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use' } });
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: expect.any(String) });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it("an instance's description dated ahead of now, written on one attachment, is not taken for a fresh one: the other records' attaches go by EC2's", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newVolume('data-2'));
    await settleAll(h);
    // Executors date what EC2 said of an instance by their clock and reuse it for an hour; this one is dated in the year 2286, naming another AZ.
    const forged = { availabilityZone: 'eu-west-1b', state: 'running', otherDevices: [], describedAt: 1e13 } as const;
    h.store.putRaw({ ...newAttachment('data-2'), status: { state: 'error', code: 'IncorrectInstanceState', attempts: 1, updatedAt: new Date(h.clock.now()).toISOString() }, instanceSeen: forged });
    const statuses: unknown[] = [];
    h.store.onChange((change) => {
      if (change.key.kind === 'attachment' && change.key.volumeId === 'data-1') statuses.push((change.newRecord as { status?: unknown } | undefined)?.status);
    });
    await h.store.create(newAttachment('data-1'));
    await settleAll(h);
    const attached = await h.store.get(attachmentKey('data-1'));
    expect(attached).toMatchObject({ status: { state: 'attached', attempts: 0 }, instanceSeen: { availabilityZone: AZ } });
    // No attempt judged by the forged description (a zone mismatch), and none of it passed on to the records the system writes.
    expect(statuses).not.toContainEqual(expect.objectContaining({ code: 'InvalidVolume.ZoneMismatch' }));
    expect((attached as { instanceSeen?: { describedAt: number } }).instanceSeen!.describedAt).toBeLessThanOrEqual(h.clock.now());
  });

  it('an attachment written `detaching` without its operation start, whose detach EC2 never finishes, backs off its looks, gives up at the age limit and, being deleted, detaches again after the longest backoff', async () => {
    const h = harness({ ebsTimings: { detach: 100 * 3_600_000 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await settleAll(h, 3);
    await h.store.update(attachmentKey('data-1'), { life: 'dying' });
    await settleAll(h, 1);
    const detaching = (await h.store.get(attachmentKey('data-1')))!;
    expect(detaching.status).toMatchObject({ state: 'detaching', operationStartedAt: expect.any(String) });
    // Put back in the table without `operationStartedAt` (restored from an export, say).
    const { operationStartedAt: _started, ...status } = detaching.status;
    h.store.putRaw({ ...detaching, status });
    const describes = h.ebs.calls.DescribeVolumes;
    const states: string[] = [];
    for (let hour = 0; hour < 7; hour++) {
      for (let minute = 0; minute < 60; minute++) await h.settle(60_000, 10_000);
      states.push((await h.store.get(attachmentKey('data-1')))!.status.state);
    }
    // Looks that grow to one a minute or two (about 200 in 6 hours), not one every few seconds; given up on at 6 hours.
    expect(h.ebs.calls.DescribeVolumes - describes).toBeLessThan(300);
    expect(states.slice(0, 6)).toEqual(Array(6).fill('detaching'));
    expect(h.ebs.calls.DetachVolume).toBe(2);
  });

  it("the system's own claims are not taken for ones written outside it", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const claimed = await h.store.claim(volumeKey('data-1'), 'executor-1', h.clock.now(), 3 * 60_000);
    expect(claimed.ok).toBe(true);
    await h.watch();
    expect((await volumeOf(h, 'data-1')).status.code).toBeUndefined();
  });
});

describe('invalid records put right in the table', () => {
  it('a record rejected for an attribute the record has no place for is taken up once its client removes that attribute, generation unchanged', async () => {
    const h = harness();
    h.store.putRaw({ ...newVolume('data-1'), note: 'made by hand' });
    await settleAll(h);
    const rejected = await volumeOf(h, 'data-1');
    expect(rejected.status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: 'note: is not a known field' });

    // Put right in the table: the attribute removed, nothing else changed (the console's "remove attribute").
    const { note: _note, ...putRight } = rejected as typeof rejected & { note?: string };
    h.store.putRaw(putRight);
    await settleAll(h);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available' }, ebsVolumeId: expect.any(String) });
  });

  it('an attachment rejected for a malformed system field is taken up once its client removes that field', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    h.store.putRaw({ ...newAttachment('data-1'), instanceSeen: { availabilityZone: 'eu-west-1a' } });
    await settleAll(h);
    const rejected = await h.store.get(attachmentKey('data-1'));
    expect(rejected?.status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringContaining('instanceSeen') });

    const { instanceSeen: _seen, ...putRight } = rejected as NonNullable<typeof rejected> & { instanceSeen?: unknown };
    h.store.putRaw(putRight);
    await settleAll(h);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' } });
  });
});
