import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { VolumeRecord, VolumeState } from '../../lib/domain/records.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, harness, newVolume, providerOver, volumeKey, runFor } from './engine-fixtures.js';
import { Executor } from '../../lib/engine/executor.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';

type Harness = ReturnType<typeof harness>;

async function volumeOf(h: Harness, volumeId = 'data-1'): Promise<VolumeRecord | undefined> {
  const record = await h.store.get(volumeKey(volumeId));
  return record?.kind === 'volume' ? record : undefined;
}

/** The states the record's status goes through from now on, in order, as the store writes them. */
function recordStates(h: Harness, volumeId = 'data-1'): VolumeState[] {
  const states: VolumeState[] = [];
  h.store.onChange(({ newRecord: record }) => {
    if (record?.kind !== 'volume' || record.volumeId !== volumeId) return;
    if (states[states.length - 1] !== record.status.state) states.push(record.status.state);
  });
  return states;
}

/** A volume whose CreateVolume calls all made their volume and lost their answers until the attempts ran out. */
async function unansweredUntilError(h: Harness) {
  h.loseCreateAnswers(2);
  await h.store.create(newVolume('data-1'));
  await runFor(h, 30);
  const volume = await volumeOf(h);
  expect(volume?.status).toMatchObject({ state: 'error', code: 'RequestTimeout' });
  expect(volume?.ebsVolumeId).toBeUndefined();
  // Both attempts sent the same request: EC2 made one volume.
  expect(h.ebs.calls.CreateVolume).toBe(2);
  expect(h.ebs.volumes()).toHaveLength(1);
  return h.ebs.volumes()[0]!.ebsVolumeId;
}

describe('a CreateVolume whose answer is lost', () => {
  it('is retried with the same request: the record learns the one volume it made', async () => {
    const h = harness();
    h.loseCreateAnswers(1);
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    const volume = await volumeOf(h);
    expect(volume?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(h.ebs.volumes().map((v) => v.ebsVolumeId)).toEqual([volume?.ebsVolumeId]);
    // Kept once answered: what EBS fixed at creation, the baseline of later spec changes.
    expect(volume?.createRequest?.spec).toEqual(newVolume('data-1').spec);
  });

  it('after the client retries a record that ended in error, is repeated as it was: no second volume', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    const made = await unansweredUntilError(h);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await runFor(h, 30);
    const volume = await volumeOf(h);
    expect(volume?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(volume?.ebsVolumeId).toBe(made);
    expect(h.ebs.volumes()).toHaveLength(1);
    expect(h.ebs.calls.CreateVolume).toBe(3);
  });

  it('on a record made dying after it ended in error, is repeated to learn the volume, which is then deleted', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    const made = await unansweredUntilError(h);

    const states = recordStates(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await runFor(h, 60);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.volume(made)).toBeUndefined();
    expect(h.ebs.calls.CreateVolume).toBe(3);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(states).toEqual(['error', 'creating', 'available', 'deleting']);
  });

  it('on a record retried and at once made dying, is repeated to learn the volume, which is then deleted', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    const made = await unansweredUntilError(h);

    // The retry puts it back to pending; the delete comes before any executor looks at it.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await h.watch();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await runFor(h, 60);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.volume(made)).toBeUndefined();
    expect(h.ebs.volumes()).toEqual([]);
  });

  it('while the client grows the volume, is repeated with the spec it was sent with; the growth follows as a modification', async () => {
    const h = harness({ ebsTimings: { modify: 5_000, optimize: 5_000 } });
    h.loseCreateAnswers(1);
    await h.store.create(newVolume('data-1', {}, { tags: { team: 'storage' } }));
    await h.watch();
    await h.drain();
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'creating', code: 'RequestTimeout', attempts: 1 });

    // The client grows it before the retry: the request EC2 saw said 10 GiB.
    const states = recordStates(h);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...(await volumeOf(h))!.spec, sizeGiB: 20 }, generation: 2 });
    await runFor(h, 60);
    const volume = await volumeOf(h);
    expect(volume?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(volume?.observed).toMatchObject({ sizeGiB: 20 });
    expect(volume?.observedGeneration).toBe(2);
    expect(states).toEqual(['creating', 'available', 'modifying', 'available']);
    const [ec2] = h.ebs.volumes();
    expect(h.ebs.volumes()).toHaveLength(1);
    expect(ec2).toMatchObject({ ebsVolumeId: volume?.ebsVolumeId, sizeGiB: 20, tags: { team: 'storage', [OWNERSHIP_TAGS.record]: 'data-1' } });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('duplicate and late create messages after the id is learnt make no volume', async () => {
    const h = harness();
    h.loseCreateAnswers(1);
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    const learnt = (await volumeOf(h))?.ebsVolumeId;
    const calls = h.ebs.calls.CreateVolume;

    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1')), h.op('create-volume', volumeKey('data-1'))));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await runFor(h, 10);
    expect(h.ebs.calls.CreateVolume).toBe(calls);
    expect((await volumeOf(h))?.ebsVolumeId).toBe(learnt);
    expect(h.ebs.volumes()).toHaveLength(1);
  });
});

describe('a record the earlier version left creating: CreateVolume sent, its request not recorded', () => {
  /**
   * The record as that version wrote it just before its CreateVolume (state creating, the AZ and
   * the generation it created, no request, no id), and the volume EC2 made under that version's
   * token (`ebsp-<id>-g<generation>`, hashed for long ids).
   */
  async function leftByEarlierVersion(h: Harness, volumeId = 'data-1', extra: Partial<VolumeRecord> = {}) {
    const at = new Date(h.clock.now()).toISOString();
    const record = newVolume(volumeId, {
      availabilityZone: AZ,
      observedGeneration: 1,
      status: { state: 'creating', message: 'creating', attempts: 0, updatedAt: at, operationStartedAt: at },
      ...extra,
    });
    const readable = `ebsp-${volumeId}-g1`;
    const clientToken = readable.length <= 64 ? readable : `ebsp-${createHash('sha256').update(volumeId).digest('hex').slice(0, 40)}-g1`;
    const tags = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: volumeId };
    const made = await h.ebs.createVolume({ clientToken, availabilityZone: AZ, spec: record.spec, tags });
    await h.store.create(record);
    return { made, clientToken };
  }

  it('repeats that request once to learn the volume it made, and records it: no second volume, no leak reported meanwhile', async () => {
    const h = harness();
    const { made, clientToken } = await leftByEarlierVersion(h);
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
    expect((await reconciler.run()).leaked).toEqual([]);

    await runFor(h, 30);
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ status: { state: 'available' }, ebsVolumeId: made.ebsVolumeId, createRequest: { clientToken, availabilityZone: AZ, spec: volume?.spec } });
    expect(h.createRequests.map((request) => request.clientToken)).toEqual([clientToken]);
    expect(h.ebs.volumes().map((v) => v.ebsVolumeId)).toEqual([made.ebsVolumeId]);
    expect((await reconciler.run()).leaked).toEqual([]);
  });

  it('with an id too long for a readable token, repeats the hashed token that version sent', async () => {
    const h = harness();
    const volumeId = `data-${'x'.repeat(70)}`;
    const { made, clientToken } = await leftByEarlierVersion(h, volumeId);
    await runFor(h, 30);
    expect(await volumeOf(h, volumeId)).toMatchObject({ ebsVolumeId: made.ebsVolumeId, createRequest: { clientToken } });
    expect(h.ebs.volumes()).toHaveLength(1);
  });

  it('made dying, learns the volume the same way and deletes it', async () => {
    const h = harness();
    const { made } = await leftByEarlierVersion(h, 'data-1', { life: 'dying' });
    await runFor(h, 60);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.volume(made.ebsVolumeId)).toBeUndefined();
    expect(h.ebs.calls).toMatchObject({ CreateVolume: 2, DeleteVolume: 1 });
  });
});

describe('a CreateVolume that EC2 will not repeat (IdempotentParameterMismatch)', () => {
  /** A record the earlier version left creating, whose spec the client grew after that version sent it: its request cannot be rebuilt as sent. */
  async function grownSinceSent(h: Harness, life: VolumeRecord['life']) {
    const at = new Date(h.clock.now()).toISOString();
    const tags = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    const made = await h.ebs.createVolume({ clientToken: 'ebsp-data-1-g1', availabilityZone: AZ, spec: newVolume('data-1').spec, tags });
    await h.store.create(
      newVolume('data-1', {
        life,
        generation: 2,
        availabilityZone: AZ,
        observedGeneration: 1,
        status: { state: 'creating', message: 'creating', attempts: 0, updatedAt: at, operationStartedAt: at },
      }, { sizeGiB: 20 }),
    );
    return made;
  }

  function reconcilerOf(h: Harness) {
    return new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
  }

  it('on a dying record, is tried once: the record goes and the volume it may have made is left to the leak report', async () => {
    const h = harness();
    const made = await grownSinceSent(h, 'dying');
    await runFor(h, 600);
    expect(h.createRequests).toHaveLength(1);
    expect(await volumeOf(h)).toBeUndefined();
    expect((await reconcilerOf(h).run()).leaked).toEqual([made.ebsVolumeId]);
  });

  it('on an alive record, ends in error saying a volume may be left behind; the retry creates a new volume', async () => {
    const h = harness();
    const made = await grownSinceSent(h, 'alive');
    await runFor(h, 600);
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({
      state: 'error',
      code: 'IdempotentParameterMismatch',
      message: expect.stringMatching(/^EC2 will not repeat CreateVolume with token ebsp-data-1-g1 \(.*\): a volume it may have made cannot be learnt/),
    });
    expect(failed?.status.message).toMatch(`, if it exists, is reported by the reconciler as leaked (tag ${OWNERSHIP_TAGS.record}=data-1); a retry creates a new volume`);
    expect(failed).not.toHaveProperty('createRequest');
    expect(failed).not.toHaveProperty('availabilityZone');
    expect(h.createRequests).toHaveLength(1);
    expect((await reconcilerOf(h).run()).leaked).toEqual([made.ebsVolumeId]);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 3 });
    await runFor(h, 30);
    const retried = await volumeOf(h);
    expect(retried).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 20 } });
    expect(retried?.ebsVolumeId).not.toBe(made.ebsVolumeId);
    expect(h.createRequests).toHaveLength(2);
  });
});

describe('a CreateVolume that EC2 will not repeat because the volume its token made was deleted', () => {
  it('ends the record in error saying so, with nothing left to the leak report; the retry creates a new volume', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    const made = await unansweredUntilError(h);
    h.ebs.deleteBehindBack(made);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await runFor(h, 30);
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'IdempotentParameterMismatch' });
    expect(failed?.status.message).toMatch(/^EC2 will not repeat CreateVolume with token \S+ \(.*already deleted.*\): the volume it made has been deleted; a retry creates a new volume$/);
    expect(failed?.status.message).not.toMatch(/may have made|leaked/);
    expect(failed).not.toHaveProperty('createRequest');
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
    expect((await reconciler.run()).leaked).toEqual([]);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 3 });
    await runFor(h, 30);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' } });
    expect(h.ebs.volumes()).toHaveLength(1);
  });
});

describe('a dying record whose repeated CreateVolume keeps failing', () => {
  it('tries again after the longest backoff once its attempts are spent, not at once, until it learns the volume and deletes it', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    const made = await unansweredUntilError(h);
    h.ebs.failNext('CreateVolume', new ProviderError('unauthorized', 'UnauthorizedOperation', 'You are not authorized to perform this operation.'), 6);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    const before = h.ebs.calls.CreateVolume;

    await runFor(h, 600);
    expect(h.ebs.calls.CreateVolume - before).toBe(2);
    const waiting = await volumeOf(h);
    expect(waiting?.status).toMatchObject({ state: 'error', code: 'UnauthorizedOperation', message: expect.stringMatching(/being deleted: trying again at /) });
    expect(Date.parse(waiting!.status.nextAttemptAt!) - h.clock.now()).toBeGreaterThan(0);

    // Two more spent cycles, 15 minutes apart; the seventh call learns the volume.
    await runFor(h, 3600);
    expect(h.ebs.calls.CreateVolume - before).toBe(7);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.volume(made)).toBeUndefined();
  });
});

describe('a CreateVolume that EC2 turns down', () => {
  it('is not repeated: the retry sends the spec the client fixed', async () => {
    const h = harness({ config: { maxAttempts: 1 } });
    h.ebs.failNext('CreateVolume', new ProviderError('limit-exceeded', 'MaxIOPSLimitExceeded', 'You have exceeded your maximum IOPS limit'));
    await h.store.create(newVolume('data-1', {}, { sizeGiB: 100, volumeType: 'io2', iops: 40_000 }));
    await runFor(h, 30);
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'MaxIOPSLimitExceeded' });
    expect(failed?.createRequest).toBeUndefined();

    // Fixed by asking for fewer IOPS, which retries.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...failed!.spec, iops: 10_000 }, generation: 2 });
    await runFor(h, 30);
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'available' });
    expect(h.ebs.volumes().map((v) => v.iops)).toEqual([10_000]);
    expect(h.ebs.calls.ModifyVolume).toBe(0);
  });

  it('in an availability zone EC2 does not have, ends in error saying so and makes nothing; the zone put right, it is created', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { availabilityZone: 'zz-nowhere-9z' }));
    await runFor(h, 30);
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'InvalidZone.NotFound', message: expect.stringContaining("'zz-nowhere-9z'") });
    expect(failed?.createRequest).toBeUndefined();
    // No volume: neither a zone nor a generation EC2 matches (the CLI showed "EC2 matches 1").
    expect(failed).not.toHaveProperty('availabilityZone');
    expect(failed).not.toHaveProperty('observedGeneration');
    expect(h.ebs.volumes()).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(1);

    // Nothing was created, so the zone is not yet fixed: the client may change it, which retries.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...failed!.spec, availabilityZone: 'eu-west-1a' }, generation: 2 });
    await runFor(h, 30);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, availabilityZone: 'eu-west-1a' });
    expect(h.ebs.volumes()).toHaveLength(1);
  });

  it('on a dying record that repeats an unanswered request, means nothing is left to delete: the record goes', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    const made = await unansweredUntilError(h);
    // The volume is gone before the repeat (deleted by hand, say), and EC2 turns the repeat down.
    await h.ebs.deleteVolume(made);
    h.ebs.failNext('CreateVolume', new ProviderError('not-found', 'InvalidSnapshot.NotFound', "The snapshot 'snap-0123456789abcdef0' does not exist."));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await runFor(h, 30);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.volumes()).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(3);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });
});

describe('a CreateVolume answered with a definite no the first time it is sent (a KMS key, a permission)', () => {
  const BAD_KEY = 'arn:aws:kms:eu-west-1:111122223333:key/11111111-1111-1111-1111-111111111111';
  const GOOD_KEY = 'arn:aws:kms:eu-west-1:111122223333:key/22222222-2222-2222-2222-222222222222';
  const keyDisabled = () => new ProviderError('unauthorized', 'KMS.DisabledException', 'The KMS key is disabled');

  it('is not repeated: the client points the spec at another key, and the retry sends that one', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    h.ebs.failNext('CreateVolume', keyDisabled(), 2);
    await h.store.create(newVolume('data-1', {}, { encrypted: true, kmsKeyId: BAD_KEY }));
    await runFor(h, 120);
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'KMS.DisabledException' });
    expect(failed?.createRequest).toBeUndefined();

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...failed!.spec, kmsKeyId: GOOD_KEY }, generation: 2 });
    await runFor(h, 30);
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'available' });
    expect(h.createRequests.map((request) => request.spec.kmsKeyId)).toEqual([BAD_KEY, BAD_KEY, GOOD_KEY]);
    expect(h.ebs.volumes()).toHaveLength(1);
  });

  it('on a record made dying, leaves nothing to learn: the record goes without calling EC2 again', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    h.ebs.failNext('CreateVolume', keyDisabled(), 100);
    await h.store.create(newVolume('data-1', {}, { encrypted: true, kmsKeyId: BAD_KEY }));
    await runFor(h, 120);
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'error', code: 'KMS.DisabledException' });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await runFor(h, 6 * 3600);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.calls.CreateVolume).toBe(2);
    expect(h.ebs.volumes()).toEqual([]);
  });

  /**
   * data-1's first send is throttled by EC2, which makes this environment defer data-2's call, its
   * request already recorded: data-2's first real send comes on a later turn, and is refused.
   */
  function deferredFirstSend() {
    const h = harness();
    const sent: { record: string; kmsKeyId?: string }[] = [];
    const provider = providerOver(h.ebs, {
      createVolume: async (request) => {
        const record = request.tags?.[OWNERSHIP_TAGS.record] ?? '?';
        sent.push({ record, kmsKeyId: request.spec.kmsKeyId });
        if (record === 'data-1' && sent.filter((s) => s.record === 'data-1').length === 1) throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
        if (request.spec.kmsKeyId === BAD_KEY) throw keyDisabled();
        return h.ebs.createVolume(request);
      },
    });
    const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } };
    const executor = new Executor({
      store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, random: () => 0.5,
      config: { rateWaitMaxMs: 5000, concurrentEnvironments: 1, rateBudgets, maxAttempts: 2 },
    });
    /** Watcher and executor for `seconds`, the clock moving while an invocation waits for a token. */
    async function runFor(seconds: number, step = 1) {
      for (let elapsed = 0; elapsed < seconds; elapsed += step) {
        await h.watch();
        const received = h.queue.receive(100);
        let done = false;
        const invocation = executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message }))).finally(() => (done = true));
        await h.clock.advance(step * 1000);
        while (!done) await h.clock.advance(1000);
        const { failedMessageIds } = await invocation;
        for (const r of received) if (!failedMessageIds.includes(r.messageId)) h.queue.delete(r.receiptHandle);
      }
      await h.watch();
    }
    const sendsOf = (record: string) => sent.filter((s) => s.record === record);
    return { h, sendsOf, runFor };
  }

  it('deferred unsent after its request was recorded, is still a first send: a dying record goes once it is refused', async () => {
    const { h, sendsOf, runFor } = deferredFirstSend();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newVolume('data-2', {}, { encrypted: true, kmsKeyId: BAD_KEY }));
    await runFor(120);
    expect((await volumeOf(h, 'data-2'))?.status).toMatchObject({ state: 'error', code: 'KMS.DisabledException' });
    await h.store.update<VolumeRecord>(volumeKey('data-2'), { life: 'dying' });
    const before = sendsOf('data-2').length;
    await runFor(3 * 3600, 20);
    expect(await volumeOf(h, 'data-2')).toBeUndefined();
    expect(sendsOf('data-2').length).toBe(before);
  });

  it('deferred unsent after its request was recorded, is still a first send: the retry sends the key the client fixed', async () => {
    const { h, sendsOf, runFor } = deferredFirstSend();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newVolume('data-2', {}, { encrypted: true, kmsKeyId: BAD_KEY }));
    await runFor(120);
    const failed = (await volumeOf(h, 'data-2'))!;
    expect(failed.status.state).toBe('error');
    await h.store.update<VolumeRecord>(volumeKey('data-2'), { spec: { ...failed.spec, kmsKeyId: GOOD_KEY }, generation: 2 });
    await runFor(120);
    expect((await volumeOf(h, 'data-2'))?.status.state).toBe('available');
    expect(sendsOf('data-2').map((s) => s.kmsKeyId).at(-1)).toBe(GOOD_KEY);
  });

  it('after an unanswered send, is repeated as it was: that send may have made a volume', async () => {
    const h = harness({ config: { maxAttempts: 3 } });
    h.loseCreateAnswers(1);
    await h.store.create(newVolume('data-1', {}, { encrypted: true, kmsKeyId: BAD_KEY }));
    await h.watch();
    await h.drain();
    h.ebs.failNext('CreateVolume', keyDisabled(), 1);
    await runFor(h, 120);
    // The repeat refused, the third send learns the volume the first one made.
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'available' });
    expect(h.createRequests.map((request) => request.clientToken)).toEqual(Array(3).fill(h.createRequests[0]!.clientToken));
    expect(h.ebs.volumes()).toHaveLength(1);
  });
});

describe('a volume gone from EC2', () => {
  /** An available volume deleted behind the system's back, then found gone by a check. */
  async function vanished(h: Harness) {
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    const first = (await volumeOf(h))!;
    h.ebs.deleteBehindBack(first.ebsVolumeId!);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound', message: `volume ${first.ebsVolumeId} no longer exists in EC2; a retry creates a new, empty volume` });
    expect(failed).not.toHaveProperty('ebsVolumeId');
    expect(failed).not.toHaveProperty('observed');
    return first;
  }

  it('is forgotten; a retry, delivered twice, creates one new volume under a new token', async () => {
    const h = harness();
    const first = await vanished(h);
    // A late check changes nothing.
    const version = (await volumeOf(h))!.version;
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h))?.version).toBe(version);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    h.changes.push(...h.changes.map((change) => ({ ...change, id: `${change.id}-again` })));
    await runFor(h, 30);
    const again = await volumeOf(h);
    expect(again?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(again?.ebsVolumeId).not.toBe(first.ebsVolumeId);
    expect(h.ebs.volumes().map((v) => v.ebsVolumeId)).toEqual([again?.ebsVolumeId]);
    const tokens = h.createRequests.map((r) => r.clientToken);
    expect(tokens).toHaveLength(2);
    expect(tokens[1]).not.toBe(tokens[0]);
  });

  it('found by a modification is forgotten the same way; the retry creates the volume at its grown size', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    const first = (await volumeOf(h))!;
    h.ebs.deleteBehindBack(first.ebsVolumeId!);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...first.spec, sizeGiB: 20 }, generation: 2 });
    await runFor(h, 10);
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound', message: expect.stringMatching(/a retry creates a new, empty volume$/) });
    expect(failed?.ebsVolumeId).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(0);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 3 });
    await runFor(h, 30);
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'available' });
    expect(h.ebs.volumes().map((v) => v.sizeGiB)).toEqual([20]);
  });

  it('takes its availability zone with it: the retry creates the new volume in the zone the spec names now', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: 'i-0aaaaaaaaaaaaaaa1', availabilityZone: 'eu-west-1b' });
    const first = await vanished(h);
    expect(await volumeOf(h)).not.toHaveProperty('availabilityZone');

    // Nothing exists any more, so the zone is no longer fixed: the client moves it, and retries.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...first.spec, availabilityZone: 'eu-west-1b' }, generation: 2 });
    await runFor(h, 30);
    const again = await volumeOf(h);
    expect(again).toMatchObject({ status: { state: 'available' }, availabilityZone: 'eu-west-1b', createRequest: { availabilityZone: 'eu-west-1b' } });
    expect(h.ebs.volumes().map((v) => v.availabilityZone)).toEqual(['eu-west-1b']);
  });

  it('found by a ModifyVolume (gone since the describe), is forgotten the same way: the retry creates a new volume', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    const first = (await volumeOf(h))!;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...first.spec, sizeGiB: 20 }, generation: 2 });
    h.ebs.failNext('ModifyVolume', new ProviderError('not-found', 'InvalidVolume.NotFound', `The volume '${first.ebsVolumeId}' does not exist.`));
    await runFor(h, 10);
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound', message: `volume ${first.ebsVolumeId} no longer exists in EC2; a retry creates a new, empty volume` });
    expect(failed).not.toHaveProperty('ebsVolumeId');
    expect(failed).not.toHaveProperty('createRequest');

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 3 });
    await runFor(h, 30);
    const again = await volumeOf(h);
    expect(again?.status).toMatchObject({ state: 'available' });
    expect(again?.ebsVolumeId).not.toBe(first.ebsVolumeId);
  });

  it('leaves nothing to delete: the record made dying goes without an EC2 call', async () => {
    const h = harness();
    await vanished(h);
    const calls = { ...h.ebs.calls };
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await runFor(h, 10);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.calls).toMatchObject({ CreateVolume: calls.CreateVolume, DeleteVolume: calls.DeleteVolume });
  });

  it('on a record in error that still holds its id, is found on the retry, which creates a new volume at once', async () => {
    const h = harness();
    // Written so by an earlier version, or the volume was deleted by hand after the error.
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', observedGeneration: 1, status: { state: 'error', code: 'VolumeError', message: 'in state error', attempts: 1, updatedAt: at } }),
    );
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await runFor(h, 30);
    const volume = await volumeOf(h);
    expect(volume?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(h.ebs.volumes().map((v) => v.ebsVolumeId)).toEqual([volume?.ebsVolumeId]);
    expect(volume?.ebsVolumeId).not.toBe('vol-0123456789abcdef0');
  });
});

describe('a volume EC2 reports in state error', () => {
  it('ends the record in error saying to delete it; a retry only looks again; deleting the record deletes the volume', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await runFor(h, 30);
    const { ebsVolumeId } = (await volumeOf(h))!;
    h.ebs.failVolume(ebsVolumeId!);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const failed = await volumeOf(h);
    expect(failed?.status).toMatchObject({ state: 'error', code: 'VolumeError', message: expect.stringMatching(/data cannot be recovered\. Delete this volume record .*a retry only looks at it again/) });
    expect(failed?.ebsVolumeId).toBe(ebsVolumeId);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    await runFor(h, 30);
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'error', code: 'VolumeError' });
    expect(h.ebs.calls).toMatchObject({ CreateVolume: 1, DeleteVolume: 0, ModifyVolume: 0 });

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await runFor(h, 30);
    expect(await volumeOf(h)).toBeUndefined();
    expect(h.ebs.volumes()).toEqual([]);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });
});

describe('a CreateVolume from a snapshot EC2 has not completed yet', () => {
  const SNAPSHOT = 'snap-0123456789abcdef0';
  const pending = () => new ProviderError('incorrect-state', 'IncorrectState', `Snapshot ${SNAPSHOT} is in invalid state - pending`);

  it('waits for it without using attempts, asking again less often as the wait grows, and creates the volume once it completes', async () => {
    const h = harness();
    // About 3 hours of refusals at the wait's pace: far beyond the attempt budget (8).
    h.ebs.failNext('CreateVolume', pending(), 25);
    await h.store.create(newVolume('data-1', {}, { snapshotId: SNAPSHOT }));
    await runFor(h, 600);
    expect((await volumeOf(h))?.status).toMatchObject({ state: 'creating', code: 'IncorrectState', attempts: 0, message: expect.stringMatching(/^waiting: Snapshot .* pending$/) });
    for (let i = 0; i < 3 * 12; i++) await h.settle(5 * 60_000, 60_000);
    await h.watch();
    await runFor(h, 30);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, spec: { snapshotId: SNAPSHOT } });
    expect(h.ebs.calls.CreateVolume).toBe(26);
    expect(h.ebs.volumes()).toHaveLength(1);
  });

  it('gives up at the maximum operation age when it never completes', async () => {
    const h = harness();
    h.ebs.failNext('CreateVolume', pending(), 1000);
    await h.store.create(newVolume('data-1', {}, { snapshotId: SNAPSHOT }));
    await runFor(h, 30);
    for (let i = 0; i < 6 * 12 + 2; i++) await h.settle(5 * 60_000, 60_000);
    const failed = await volumeOf(h);
    // At the first look past 6 hours: within the 15 minutes between looks.
    expect(failed?.status).toMatchObject({ state: 'error', code: 'IncorrectState', message: expect.stringMatching(/pending \(gave up after (36\d|37[0-5]) minutes\)$/) });
    expect(h.ebs.calls.CreateVolume).toBeLessThan(40);
    expect(h.ebs.volumes()).toEqual([]);
  });
});
