import { describe, expect, it } from 'vitest';
import { keyString, type AttachmentRecord, type VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { Reconciler, SCAN_RESERVE_MS, WRAP_UP_RESERVE_MS, type ReconcileReport } from '../../lib/engine/reconciler.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { ItemTooLargeError, ProviderError, type Metrics, type SharedRateBudget } from '../../lib/engine/ports.js';
import { RECORD_TOO_LARGE_LOG } from '../../lib/engine/rejection.js';
import { MemoryRateBudget, RecordingLog, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { METRICS, OWNERSHIP_TAGS, RECONCILER } from '../../lib/settings.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, harness, iopsModification, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';
import { MINUTE, OWNER, reconcilerWorld, volume } from './reconciler-fixtures.js';

const setup = reconcilerWorld;

/** Volume record `cooling` of `ebsVolumeId`, available at 10 GiB with a grow to 30 GiB asked for (generation 2) and not made yet. */
function growWaiting(ebsVolumeId: string, at: string, overrides: Partial<VolumeRecord>): VolumeRecord {
  return volume('cooling', at, {
    ebsVolumeId,
    availabilityZone: 'us-east-1a',
    spec: { sizeGiB: 30, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
    generation: 2,
    observed: { sizeGiB: 10, volumeType: 'gp3' },
    observedGeneration: 1,
    ...overrides,
  });
}

/** An EC2 volume made for `record` by the deployment `owner` (this one by default), as CreateVolume tags it. */
function ownedVolume(env: ReturnType<typeof setup>, record: string, owner = OWNER) {
  return env.ebs.createVolume({
    clientToken: record,
    availabilityZone: 'us-east-1a',
    spec: { sizeGiB: 10, volumeType: 'gp3' },
    tags: { [OWNERSHIP_TAGS.owner]: owner, [OWNERSHIP_TAGS.record]: record },
  });
}

/** Runs the executor on everything due in the queue until nothing is left to do. */
async function drain(env: ReturnType<typeof setup>) {
  for (let round = 0; round < 50; round++) {
    const batch = env.queue.receive(100);
    if (batch.length === 0) {
      const next = env.queue.nextVisibleAt();
      if (next === undefined) return;
      await env.clock.advanceTo(next);
      continue;
    }
    const { failedMessageIds } = await env.executor.run(batch.map((m) => ({ messageId: m.messageId, message: m.message })));
    for (const m of batch) if (!failedMessageIds.includes(m.messageId)) env.queue.delete(m.receiptHandle);
  }
}

describe('Reconciler', () => {
  it('re-enqueues a record whose message was lost, and the executor then does the work', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    await env.store.create(volume('lost', at));
    await env.clock.advance(10 * MINUTE);
    const report = await env.reconciler.run();
    expect(report.requeued).toEqual([{ key: 'volume/lost', reason: expect.stringContaining('work pending') }]);
    expect(env.queue.pending().map((p) => p.message)).toEqual([
      expect.objectContaining({ op: 'check-volume', key: { kind: 'volume', volumeId: 'lost' } }),
    ]);
    await drain(env);
    const record = (await env.store.get({ kind: 'volume', volumeId: 'lost' })) as VolumeRecord;
    expect(record.status.state).toBe('available');
    expect(env.ebs.volumes()).toHaveLength(1);
  });

  it('leaves pending EC2 calls alone while calls wait in line for their bucket\'s tokens; nudges them once the line is gone', async () => {
    const env = setup();
    const budget = new MemoryRateBudget();
    const config = { ownerTagValue: OWNER };
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, rateBudget: budget, clock: env.clock, metrics: env.metrics, log: silentLog, config });
    const at = new Date(env.clock.now()).toISOString();
    await env.store.create(volume('waiting', at));
    // A burst took CreateVolume tokens 20 minutes ahead (a call asked for now would wait that long).
    const { burst, ratePerSecond } = DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume;
    await budget.take('CreateVolume', burst + 20 * 60 * ratePerSecond, DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume, env.clock.now(), 3_600_000);
    await env.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
    await env.clock.advance(11 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/waiting', reason: expect.stringContaining('work pending') }]);
  });

  it("judges a lost tag change that only removes keys by the mutating actions' line, one that sets keys by CreateTags'", async () => {
    const env = setup();
    const budget = new MemoryRateBudget();
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, rateBudget: budget, clock: env.clock, metrics: env.metrics, log: silentLog, config: { ownerTagValue: OWNER } });
    const at = new Date(env.clock.now()).toISOString();
    const held = { team: 'a', env: 'dev' };
    for (const [volumeId, tags] of [['removes', { team: 'a' }], ['sets', { team: 'b', env: 'dev' }]] as const) {
      const { ebsVolumeId } = await ownedVolume(env, volumeId);
      env.ebs.retagBehindBack(ebsVolumeId, { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: volumeId, ...held });
      await env.store.create(
        volume(volumeId, at, {
          ebsVolumeId,
          spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags },
          generation: 2,
          observed: { sizeGiB: 10, volumeType: 'gp3', tags: held },
          observedGeneration: 1,
          status: { state: 'available', attempts: 0, updatedAt: at },
        }),
      );
    }
    // A burst took the mutating actions' tokens 20 minutes ahead.
    const mutating = DEFAULT_ENGINE_CONFIG.accountRateBudgets.AttachVolume;
    await budget.take('AttachVolume', mutating.burst + 20 * 60 * mutating.ratePerSecond, mutating, env.clock.now(), 3_600_000);
    await env.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/sets', reason: 'work pending (tags changed)' }]);
  });

  it('judges pending calls as before when the shared budget cannot be read, and says so', async () => {
    const env = setup();
    const log = new RecordingLog();
    const unreadable: SharedRateBudget = { take: async () => Promise.reject(new Error('down')), waitMs: async () => Promise.reject(new Error('down')) };
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, rateBudget: unreadable, clock: env.clock, metrics: env.metrics, log, config: { ownerTagValue: OWNER } });
    await env.store.create(volume('lost', new Date(env.clock.now()).toISOString()));
    await env.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/lost', reason: expect.stringContaining('work pending') }]);
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringMatching(/shared rate budget/) }));
  });

  it('leaves alone records that were updated recently, are claimed, or are at rest and match EC2', async () => {
    const env = setup();
    const now = new Date(env.clock.now()).toISOString();
    await env.store.create(volume('fresh', now));
    await env.store.create(volume('claimed', '2026-01-01T00:00:00.000Z', { claim: { owner: 'x', expiresAt: env.clock.now() + MINUTE } }));
    await env.store.create(volume('error', '2026-01-01T00:00:00.000Z', { status: { state: 'error', attempts: 8, updatedAt: '2026-01-01T00:00:00.000Z' } }));
    const report = await env.reconciler.run();
    expect(report.scanned).toBe(3);
    expect(report.requeued).toEqual([]);
    expect(env.queue.pending()).toEqual([]);
  });

  it('re-enqueues overdue retries, stuck transitions and volumes changed behind its back, with one DescribeVolumes per page', async () => {
    const env = setup();
    const { ebsVolumeId } = await ownedVolume(env, 'gone');
    const old = '2026-02-28T00:00:00.000Z';
    await env.store.create(volume('gone', old, { ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: old } }));
    await env.store.create(
      volume('retry', old, { status: { state: 'pending', code: 'RequestTimeout', message: 'Request timed out', attempts: 2, updatedAt: old, nextAttemptAt: '2026-02-28T00:01:00.000Z' } }),
    );
    await env.store.create(volume('stuck', old, { ebsVolumeId: 'vol-00000000000000abc', status: { state: 'creating', attempts: 0, updatedAt: old } }));
    env.ebs.deleteBehindBack(ebsVolumeId);
    const describesBefore = env.ebs.calls.DescribeVolumes;
    const report = await env.reconciler.run();
    expect(report.requeued.map((r) => r.key).sort()).toEqual(['volume/gone', 'volume/retry', 'volume/stuck']);
    expect(report.requeued.find((r) => r.key === 'volume/gone')?.reason).toContain('no longer has');
    // One DescribeVolumes for the page, one listing of owned volumes.
    expect(env.ebs.calls.DescribeVolumes - describesBefore).toBe(2);
  });

  it('re-enqueues a volume whose managed client tags EC2 holds differ from those its record observed, naming the keys; not for key order, ownership tags, a tag set outside under a key the client never named, or a record that never observed tags', async () => {
    const env = setup();
    const old = '2026-02-28T00:00:00.000Z';
    const tags = { team: 'a', env: 'dev' };
    const record = async (volumeId: string, overrides: Partial<VolumeRecord> = {}) => {
      const { ebsVolumeId } = await ownedVolume(env, volumeId);
      await env.store.create(
        volume(volumeId, old, {
          ebsVolumeId,
          spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags },
          observed: { sizeGiB: 10, volumeType: 'gp3', tags },
          observedGeneration: 1,
          status: { state: 'available', attempts: 0, updatedAt: old },
          ...overrides,
        }),
      );
      return ebsVolumeId;
    };
    const ownership = (volumeId: string, owner = OWNER) => ({ [OWNERSHIP_TAGS.owner]: owner, [OWNERSHIP_TAGS.record]: volumeId });
    env.ebs.retagBehindBack(await record('changed'), { ...ownership('changed'), team: 'b', env: 'dev' });
    env.ebs.retagBehindBack(await record('removed'), { ...ownership('removed'), team: 'a' });
    env.ebs.retagBehindBack(await record('added'), { ...ownership('added'), team: 'a', env: 'dev', cost: 'c-1' });
    const many = Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`k${i}`, 'v']));
    const manyRecord = { spec: { sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: 'us-east-1a', tags: many }, observed: { sizeGiB: 10, volumeType: 'gp3' as const, tags: many } };
    env.ebs.retagBehindBack(await record('many', manyRecord), { ...ownership('many'), ...Object.fromEntries(Object.keys(many).map((key) => [key, 'w'])) });
    env.ebs.retagBehindBack(await record('reordered'), { env: 'dev', ...ownership('reordered'), team: 'a' });
    env.ebs.retagBehindBack(await record('ownership'), { ...ownership('someone', 'other-stack'), ...tags });
    env.ebs.retagBehindBack(await record('unobserved', { observed: { sizeGiB: 10, volumeType: 'gp3' } }), { ...ownership('unobserved'), team: 'b' });
    env.ebs.retagBehindBack(await record('dying', { life: 'dying' }), { ...ownership('dying'), team: 'b' });
    await env.clock.advance(MINUTE);

    const report = await env.reconciler.run();
    const reasons = Object.fromEntries(report.requeued.map(({ key, reason }) => [key, reason]));
    expect(reasons).toEqual({
      'volume/changed': "EC2 tags differ from the record's: team",
      'volume/removed': "EC2 tags differ from the record's: env",
      'volume/many': "EC2 tags differ from the record's: k0, k1, k2, k3, k4 and 3 more",
      // Its delete is due (its message lost): its tags no longer matter.
      'volume/dying': 'work pending (dying and detached)',
    });
    expect(env.queue.pending().map((p) => p.message)).toContainEqual(
      expect.objectContaining({ op: 'check-volume', key: { kind: 'volume', volumeId: 'changed' }, reason: "reconciler: EC2 tags differ from the record's: team" }),
    );
  });

  it("leaves alone a record whose next attempt is scheduled (a modification waiting for EC2's limit) until it is overdue", async () => {
    const env = setup();
    const { ebsVolumeId } = await ownedVolume(env, 'cooling');
    await env.clock.advance(MINUTE);
    const at = new Date(env.clock.now()).toISOString();
    const nextAttemptAt = new Date(env.clock.now() + 5 * 60 * MINUTE).toISOString();
    await env.store.create(
      growWaiting(ebsVolumeId, at, {
        status: { state: 'available', code: 'VolumeModificationRateExceeded', message: 'EC2 allows 4 modifications per volume in any 24 hours', attempts: 0, updatedAt: at, nextAttemptAt },
      }),
    );
    await env.clock.advance(4 * 60 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([]);
    await env.clock.advance(66 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/cooling', reason: `next attempt was due at ${nextAttemptAt}` }]);
  });

  it("leaves alone a modification waiting for EC2's limit known from the record alone until it ends; nudges it once the window allows", async () => {
    const env = setup();
    const { ebsVolumeId } = await ownedVolume(env, 'cooling');
    const at = new Date(env.clock.now()).toISOString();
    await env.store.create(
      growWaiting(ebsVolumeId, at, {
        // 4 started by then, as a refusal records them.
        lastModificationStartedAt: at,
        earlierModificationStarts: [at, at, at],
        // Its message lost before the executor wrote the wait into the status.
        status: { state: 'available', attempts: 0, updatedAt: at },
      }),
    );
    await env.clock.advance(24 * 60 * MINUTE - MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([]);
    await env.clock.advance(2 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/cooling', reason: 'work pending (spec changed)' }]);
  });

  it('leaves alone a volume changed behind its back while a retry of its own backs off, until the retry is overdue: a nudge before it would only be put off', async () => {
    const env = setup();
    const { ebsVolumeId } = await ownedVolume(env, 'backing-off');
    const at = new Date(env.clock.now()).toISOString();
    const nextAttemptAt = new Date(env.clock.now() + 15 * MINUTE).toISOString();
    await env.store.create(
      volume('backing-off', at, {
        ebsVolumeId,
        availabilityZone: 'us-east-1a',
        spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags: { team: 'b' } },
        observed: { sizeGiB: 10, volumeType: 'gp3', tags: { team: 'a' } },
        generation: 2,
        observedGeneration: 1,
        status: { state: 'available', code: 'InternalError', message: 'CreateTags failed', attempts: 1, updatedAt: at, operationStartedAt: at, nextAttemptAt },
      }),
    );
    env.ebs.retagBehindBack(ebsVolumeId, { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'backing-off', team: 'c' });
    for (const minutes of [6, 6]) {
      await env.clock.advance(minutes * MINUTE);
      expect((await env.reconciler.run()).requeued).toEqual([]);
    }
    await env.clock.advance(9 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/backing-off', reason: `next attempt was due at ${nextAttemptAt}` }]);
  });

  it('leaves alone a record in a transitional state backing off until its next attempt is overdue: the executor makes no early call', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    const nextAttemptAt = new Date(env.clock.now() + 15 * MINUTE).toISOString();
    const createRequest = { clientToken: 'backing-off', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' as const } };
    await env.store.create(
      volume('backing-off', at, {
        createRequest,
        availabilityZone: 'us-east-1a',
        observedGeneration: 1,
        status: { state: 'creating', code: 'RequestTimeout', message: 'CreateVolume timed out', attempts: 1, updatedAt: at, operationStartedAt: at, nextAttemptAt },
      }),
    );
    for (const minutes of [6, 6, 6]) {
      await env.clock.advance(minutes * MINUTE);
      expect((await env.reconciler.run()).requeued).toEqual([]);
      await drain(env);
    }
    expect(env.ebs.calls.CreateVolume).toBe(0);
    // 18 minutes in, its next attempt is 3 minutes overdue: not yet lost. At 21, it is.
    await env.clock.advance(3 * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/backing-off', reason: `next attempt was due at ${nextAttemptAt}` }]);
  });

  it('reports owned volumes no record knows, never deletes them, and publishes the count', async () => {
    const env = setup();
    const create = (record: string, owner = OWNER) => ownedVolume(env, record, owner);
    const leaked = await create('nobody');
    await create('someone-else', 'other-stack');
    const known = await create('known');
    await create('in-flight');
    await create('unanswered');
    // Its record holds no request: EC2 turned the last one down, so this volume is no one's.
    const refused = await create('refused');
    const now = new Date(env.clock.now()).toISOString();
    const createRequest = { clientToken: 't', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' as const } };
    await env.store.create(volume('known', now, { ebsVolumeId: known.ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: now } }));
    await env.store.create(volume('in-flight', now, { createRequest, status: { state: 'creating', attempts: 0, updatedAt: now } }));
    // Its CreateVolume went unanswered until the attempts ran out: a retry or a delete learns the id.
    await env.store.create(volume('unanswered', now, { createRequest, status: { state: 'error', attempts: 8, updatedAt: now } }));
    await env.store.create(volume('refused', now, { status: { state: 'creating', attempts: 1, updatedAt: now } }));
    const report = await env.reconciler.run();
    expect(report.leaked.sort()).toEqual([leaked.ebsVolumeId, refused.ebsVolumeId].sort());
    expect(env.metrics.counter(METRICS.leaked)).toBe(2);
    expect(env.ebs.volume(leaked.ebsVolumeId)?.state).toBe('creating');
    expect(env.ebs.calls.DeleteVolume).toBe(0);
  });

  it('names in its log the instances a leaked volume is still attached to (nothing detaches it while its attachment stays)', async () => {
    const env = setup();
    const log = new RecordingLog();
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, clock: env.clock, metrics: env.metrics, log, config: { ownerTagValue: OWNER } });
    env.ebs.addInstance({ instanceId: INSTANCE, availabilityZone: 'us-east-1a' });
    const attached = await ownedVolume(env, 'removed-while-attached');
    const detached = await ownedVolume(env, 'removed');
    await env.clock.advance(10_000);
    await env.ebs.attachVolume({ ebsVolumeId: attached.ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await env.clock.advance(10_000);
    const report = await reconciler.run();
    expect(report.leaked.sort()).toEqual([attached.ebsVolumeId, detached.ebsVolumeId].sort());
    expect(log.entries.find((entry) => entry.level === 'warn')).toEqual({
      level: 'warn',
      message: 'volumes owned by this deployment have no record; not deleting them',
      attributes: { ebsVolumeIds: report.leaked, attachedTo: { [attached.ebsVolumeId]: [INSTANCE] } },
    });
  });

  it('does not report a volume whose record was written after the scan passed its key', async () => {
    const env = setup();
    const now = new Date(env.clock.now()).toISOString();
    const createRequest = { clientToken: 'late', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' as const } };
    const tags = (record: string) => ({ [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: record });
    // The scan is over when the listing of owned volumes begins: records and volumes made in between.
    const list = env.ebs.listOwnedVolumes.bind(env.ebs);
    let madeMeanwhile = false;
    env.ebs.listOwnedVolumes = async (options) => {
      if (!madeMeanwhile) {
        madeMeanwhile = true;
        const answered = await env.ebs.createVolume({ clientToken: 'answered', availabilityZone: 'us-east-1a', spec: createRequest.spec, tags: tags('answered') });
        await env.store.create(volume('answered', now, { ebsVolumeId: answered.ebsVolumeId, createRequest, status: { state: 'creating', attempts: 0, updatedAt: now } }));
        await env.ebs.createVolume({ ...createRequest, tags: tags('unanswered') });
        await env.store.create(volume('unanswered', now, { createRequest, status: { state: 'creating', attempts: 0, updatedAt: now } }));
        await env.ebs.createVolume({ clientToken: 'orphan', availabilityZone: 'us-east-1a', spec: createRequest.spec, tags: tags('orphan') });
      }
      return list(options);
    };
    const report = await env.reconciler.run();
    expect(report.scanned).toBe(0);
    expect(report.leaked).toEqual([env.ebs.volumes().find((v) => v.tags[OWNERSHIP_TAGS.record] === 'orphan')!.ebsVolumeId]);
  });

  it('counts invalid records; one whose status does not say why (its change never reached the watcher) is looked at once, and the executor writes why, with no EC2 call', async () => {
    const env = setup();
    env.store.putRaw({ kind: 'volume', volumeId: 'bad', spec: { sizeGiB: -1 }, life: 'alive', generation: 1 });
    const first = await env.reconciler.run();
    expect(first).toMatchObject({ scanned: 1, invalid: 1, requeued: [{ key: 'volume/bad', reason: 'invalid, and its status does not say why' }] });
    const ec2Calls = () => Object.values(env.ebs.calls).reduce((sum, count) => sum + count, 0);
    const beforeExecutor = ec2Calls();
    await drain(env);
    expect(await env.store.get(volumeKey('bad'))).toMatchObject({
      status: { state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/spec\.sizeGiB/) },
    });
    expect(ec2Calls()).toBe(beforeExecutor);
    await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    expect(await env.reconciler.run()).toMatchObject({ scanned: 1, invalid: 1, requeued: [] });
  });

  it('a record whose claim ends beyond the lease (written by hand) and whose status does not say why is looked at once; the executor writes why instead of waiting for the claim, with no EC2 call', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    const claim = { owner: 'someone', expiresAt: env.clock.now() + 365 * 24 * 60 * MINUTE };
    env.store.putRaw(volume('held', at, { claim }));
    const first = await env.reconciler.run();
    expect(first.requeued).toEqual([{ key: 'volume/held', reason: 'invalid, and its status does not say why' }]);
    const ec2Calls = () => Object.values(env.ebs.calls).reduce((sum, count) => sum + count, 0);
    const beforeExecutor = ec2Calls();
    await drain(env);
    expect(await env.store.get(volumeKey('held'))).toMatchObject({ claim, status: { state: 'error', code: 'InvalidRecord', message: expect.stringMatching(/^claim\.expiresAt: /) } });
    // Not sent back every 15 minutes for as long as the claim says.
    expect(env.queue.nextVisibleAt()).toBeUndefined();
    expect(ec2Calls()).toBe(beforeExecutor);
    await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([]);
  });

  it.each(['updatedAt', 'operationStartedAt'])('a record whose status.%s is a year ahead (written by hand) is not held fresh for that year: it is looked at and rejected naming the field, with no EC2 call', async (field) => {
    const env = setup();
    const now = new Date(env.clock.now()).toISOString();
    const ahead = new Date(env.clock.now() + 365 * 24 * 60 * MINUTE).toISOString();
    // Under way with no message of its own: only the reconciler can take it up, once it is overdue.
    env.store.putRaw(volume('late', now, { status: { state: 'creating', attempts: 1, updatedAt: now, [field]: ahead } }));
    await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/late', reason: 'invalid, and its status does not say why' }]);
    const ec2Calls = () => Object.values(env.ebs.calls).reduce((sum, count) => sum + count, 0);
    const beforeExecutor = ec2Calls();
    await drain(env);
    expect(await env.store.get(volumeKey('late'))).toMatchObject({ status: { state: 'error', code: 'InvalidRecord', message: `status.${field}: ${ahead} is ahead of the clock (the system writes its times as it writes them): put it right or remove it` } });
    expect(ec2Calls()).toBe(beforeExecutor);
    await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([]);
  });

  it.each([
    ['too large to take its rejection', new ItemTooLargeError('volume/bad: Item size has exceeded the maximum allowed size'), RECORD_TOO_LARGE_LOG],
    ['whose rejection the table failed to write', new Error('ProvisionedThroughputExceededException'), 'could not write the rejection of an invalid record; the reconciler looks at it again'],
  ])('an invalid record %s is left as it is, the executor warning why, and looked at again next pass', async (_, failure, warning) => {
    const env = setup();
    const log = new RecordingLog();
    env.executor = new Executor({ store: env.store, queue: env.queue, provider: env.ebs, clock: env.clock, metrics: env.metrics, log, config: { ownerTagValue: OWNER }, random: () => 0.5 });
    const raw = { kind: 'volume', volumeId: 'bad', spec: { sizeGiB: -1 }, life: 'alive', generation: 1 } as const;
    env.store.putRaw(raw);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/bad', reason: 'invalid, and its status does not say why' }]);
    env.store.failNext('update', failure);
    await drain(env);
    expect(await env.store.get(volumeKey('bad'))).toEqual(raw);
    expect(log.entries.filter((entry) => entry.message === warning).map((entry) => [entry.level, entry.attributes?.key])).toEqual([['warn', 'volume/bad']]);
    expect(log.entries.filter((entry) => entry.level === 'error')).toEqual([]);
    await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([{ key: 'volume/bad', reason: 'invalid, and its status does not say why' }]);
  });

  it('does not send a look for an invalid record whose key names an empty id: no message can carry it, and one sent every pass would be dropped every time', async () => {
    const env = setup();
    env.store.putRaw({ ...newAttachment('data-1'), instanceId: '' });
    const report = await env.reconciler.run();
    expect(report).toMatchObject({ scanned: 1, invalid: 1, requeued: [] });
  });

  it('leaves alone the attachments of an invalid volume record: they are not taken for those of a removed one', async () => {
    const env = setup();
    const at = new Date(env.clock.now() - 60 * MINUTE).toISOString();
    env.store.putRaw({ kind: 'volume', volumeId: 'bad', spec: { sizeGiB: -1, volumeType: 'gp3' }, life: 'alive', generation: 1 });
    env.store.putRaw({ ...newAttachment('bad'), status: { state: 'attached', attempts: 0, updatedAt: at }, device: '/dev/sdf', createdAt: at });
    const report = await env.reconciler.run();
    // The volume record is looked at only for its status to say why it is invalid.
    expect(report).toMatchObject({ scanned: 2, invalid: 1, requeued: [{ key: 'volume/bad' }] });
  });

  it('does not nudge every pass a dying volume that waits for an attachment record that is not valid: it is an attachment to the executor too, which waits for it', async () => {
    const env = setup();
    const old = '2026-02-28T00:00:00.000Z';
    const { ebsVolumeId } = await env.ebs.createVolume({ clientToken: 'doomed', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'doomed' } });
    await env.clock.advance(MINUTE);
    await env.store.create(volume('doomed', old, { ebsVolumeId, life: 'dying', observed: { sizeGiB: 10, volumeType: 'gp3' }, status: { state: 'available', attempts: 0, updatedAt: old } }));
    // Its attachment, being detached, was changed in the table by hand and is no longer valid: the client must put it right (or remove it) first.
    env.store.putRaw({ ...newAttachment('doomed'), life: 'dying', device: '/dev/sdf', status: { state: 'detaching', attempts: 0, updatedAt: old }, createdAt: old, note: 'edited by hand' });
    const passes: string[][] = [];
    for (let pass = 0; pass < 3; pass++) {
      passes.push((await env.reconciler.run()).requeued.map((r) => r.key));
      await drain(env);
      await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    }
    // The executor plans the volume with every attachment record of it, valid or not, and waits: nothing is deleted while one is there.
    expect(env.ebs.calls.DeleteVolume).toBe(0);
    // The attachment is looked at once, for its status to say why it is invalid.
    expect(passes).toEqual([[attachmentKey('doomed').kind + '/doomed/' + INSTANCE], [], []]);
  });

  it('does not report as leaked the volume of a record that exists but is invalid: the record is the one to fix', async () => {
    const env = setup();
    const named = await ownedVolume(env, 'bad');
    const leaked = await ownedVolume(env, 'nobody');
    env.store.putRaw({ kind: 'volume', volumeId: 'bad', spec: { sizeGiB: -1, volumeType: 'gp3' }, life: 'alive', generation: 1, ebsVolumeId: named.ebsVolumeId });
    const report = await env.reconciler.run();
    expect(report).toMatchObject({ scanned: 1, invalid: 1, leaked: [leaked.ebsVolumeId] });
  });

  it('reports as leaked the volume of a removed record that a copy of that record still names: the copy does not hold it', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    const original = await ownedVolume(env, 'original');
    const shared = await ownedVolume(env, 'shared');
    // 'copy' was copied in the table from 'original', which was then removed without its volume;
    // 'twin' copies 'shared', whose own record is still there.
    await env.store.create(volume('copy', at, { ebsVolumeId: original.ebsVolumeId, status: { state: 'error', attempts: 0, updatedAt: at, code: 'VolumeOfAnotherRecord' } }));
    await env.store.create(volume('shared', at, { ebsVolumeId: shared.ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: at } }));
    await env.store.create(volume('twin', at, { ebsVolumeId: shared.ebsVolumeId, status: { state: 'error', attempts: 0, updatedAt: at, code: 'VolumeOfAnotherRecord' } }));
    const report = await env.reconciler.run();
    expect(report).toMatchObject({ scanned: 3, leaked: [original.ebsVolumeId], leakCheckComplete: true });
  });

  it('still re-enqueues overdue work when EC2 throttles the describe, and compares with EC2 on the next run', async () => {
    const env = setup();
    const start = new Date(env.clock.now()).toISOString();
    const gone = await ownedVolume(env, 'gone');
    await env.clock.advance(10_000);
    await env.store.create(volume('gone', start, { ebsVolumeId: gone.ebsVolumeId, observed: { sizeGiB: 10, volumeType: 'gp3', tags: {} }, observedGeneration: 1, status: { state: 'available', attempts: 0, updatedAt: start } }));
    await env.store.create(volume('stuck', start, { status: { state: 'creating', attempts: 0, updatedAt: start } }));
    env.ebs.deleteBehindBack(gone.ebsVolumeId);
    await env.clock.advance(10 * MINUTE);

    env.ebs.failNext('DescribeVolumes', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    const log = new RecordingLog();
    const throttled = await new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, clock: env.clock, metrics: env.metrics, log, config: { ownerTagValue: OWNER } }).run();
    expect(throttled.requeued.map((r) => r.key)).toEqual(['volume/stuck']);
    expect(log.entries).toEqual(expect.arrayContaining([expect.objectContaining({ level: 'warn', attributes: expect.objectContaining({ code: 'RequestLimitExceeded' }) })]));

    const next = await env.reconciler.run();
    expect(next.requeued).toEqual(
      expect.arrayContaining([{ key: 'volume/gone', reason: `EC2 no longer has ${gone.ebsVolumeId}` }, expect.objectContaining({ key: 'volume/stuck' })]),
    );
  });

  it('judges an attachment against its volume when the volume falls on the next page', async () => {
    const env = setup();
    const start = new Date(env.clock.now()).toISOString();
    const ec2 = await ownedVolume(env, 'paged');
    await env.clock.advance(10_000);
    await env.store.create(volume('paged', start, { ebsVolumeId: ec2.ebsVolumeId, availabilityZone: 'us-east-1a', observed: { sizeGiB: 10, volumeType: 'gp3', tags: {} }, observedGeneration: 1, status: { state: 'available', attempts: 0, updatedAt: start } }));
    // Its attach message was lost: pending, untouched since.
    await env.store.create({
      kind: 'attachment',
      volumeId: 'paged',
      instanceId: 'i-0123456789abcdef0',
      life: 'alive',
      status: { state: 'pending', attempts: 0, updatedAt: start },
      version: 0,
      createdAt: start,
    });
    await env.clock.advance(10 * MINUTE);
    const onePerPage = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, clock: env.clock, metrics: env.metrics, log: silentLog, config: { ownerTagValue: OWNER }, pageSize: 1 });
    const report = await onePerPage.run();
    expect(report.scanned).toBe(2);
    expect(report.requeued).toEqual([{ key: 'attachment/paged/i-0123456789abcdef0', reason: 'work pending (volume ready)' }]);
    expect(report.leaked).toEqual([]);
  });

  /** A harness holding volume data-1 attached to INSTANCE through the watcher and executor, everything settled. */
  async function attachedVolume() {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 30 && (await h.store.get(attachmentKey('data-1')))?.status.state !== 'attached'; i++) {
      await h.watch();
      await h.settle(1000);
    }
    await h.watch();
    await h.settle(5000);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    return { h, reconciler, ebsVolumeId };
  }

  it('looks again at an attach given up on while EC2 was still attaching: once EC2 has made it, the attachment is attached', async () => {
    const h = harness({ config: { maxOperationAgeMs: 10 * MINUTE }, ebsTimings: { attach: 60 * MINUTE } });
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    for (let i = 0; i < 30 && (await h.store.get(attachmentKey('data-1')))?.status.state !== 'error'; i++) {
      await h.watch();
      await h.settle(MINUTE, 5000);
    }
    const failed = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(failed.status).toMatchObject({ state: 'error', code: 'Timeout' });
    // The executor's own look after giving up finds EC2 still attaching: nothing changes, nor on the reconciler's pass.
    await h.settle(5 * MINUTE, 5000);
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(failed);
    expect((await reconciler.run()).requeued.map((r) => r.key)).not.toContain(`attachment/data-1/${INSTANCE}`);

    await h.clock.advance(60 * MINUTE);
    const ebsVolumeId = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    expect((await reconciler.run()).requeued).toContainEqual({
      key: `attachment/data-1/${INSTANCE}`,
      reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE}, which the attachment gave up on`,
    });
    await h.drain();
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attached.status).toMatchObject({ state: 'attached', message: 'EC2 made the attach after it was given up on' });
    expect(attached.device).toBe(failed.device);
    await h.settle(5000);
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('in-use');
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('has an attachment given up on that EC2 shows not attached drop its device (its own look was lost), once', async () => {
    const h = harness();
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    const volume = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    const status = { state: 'error' as const, code: 'RequestTimeout', message: 'Request timed out (gave up after 8 failed attempts)', attempts: 8, updatedAt: new Date(h.clock.now()).toISOString() };
    await h.store.create(newAttachment('data-1', { device: '/dev/sdf', volumeCreatedAt: volume.createdAt, status }));
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([
      { key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${volume.ebsVolumeId} not attached to ${INSTANCE}; the attachment keeps device /dev/sdf` },
    ]);
    await h.drain();
    const looked = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(looked.status).toEqual(status);
    expect(looked.device).toBeUndefined();
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
  });

  it('notices an attachment detached behind its back and attaches it again, with one DescribeVolumes for the page', async () => {
    const { h, reconciler, ebsVolumeId } = await attachedVolume();
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);

    // Someone detaches it in the console.
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, device: attached.device! });
    await h.clock.advance(10 * MINUTE);
    const describes = h.ebs.calls.DescribeVolumes;
    const report = await reconciler.run();
    expect(report.requeued).toEqual(
      expect.arrayContaining([
        { key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${ebsVolumeId} not attached to ${INSTANCE}` },
        { key: 'volume/data-1', reason: 'EC2 says available, record says in-use' },
      ]),
    );
    // One DescribeVolumes for the page, one listing of owned volumes.
    expect(h.ebs.calls.DescribeVolumes - describes).toBe(2);

    await h.drain();
    const noticed = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(noticed.status).toMatchObject({ state: 'pending', message: expect.stringContaining('detached outside the provisioner') });
    for (let i = 0; i < 30 && (await h.store.get(attachmentKey('data-1')))?.status.state !== 'attached'; i++) {
      await h.watch();
      await h.settle(1000);
    }
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
    expect(h.ebs.calls.AttachVolume).toBe(2);
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
    await h.watch();
    await h.settle(5000);
    expect((await h.store.get(volumeKey('data-1')))?.status.state).toBe('in-use');
  });

  it('an attachment whose volume was moved to another instance in the console says it waits for that detach, and is attached again once EC2 has made it', async () => {
    const { h, reconciler, ebsVolumeId } = await attachedVolume();
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, device: attached.device! });
    await h.settle(30_000);
    await h.ebs.attachVolume({ ebsVolumeId, instanceId: OTHER_INSTANCE, device: '/dev/sdq' });
    await h.settle(30_000);
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: `attachment/data-1/${INSTANCE}`, reason: `EC2 shows ${ebsVolumeId} not attached to ${INSTANCE}` }]);
    await h.drain();
    await h.watch();
    await h.settle(30_000);
    // No attach follows while the volume is attached there: the status says what it waits for, not that it attaches again.
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status).toMatchObject({
      state: 'pending',
      message: 'waiting for volume data-1 to be detached from its other instance',
    });
    expect(h.ebs.calls.AttachVolume).toBe(2);

    // Detached there: the next passes see the volume available and the attachment is attached again.
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: OTHER_INSTANCE, device: '/dev/sdq' });
    for (let i = 0; i < 3 && (await h.store.get(attachmentKey('data-1')))?.status.state !== 'attached'; i++) {
      await h.clock.advance(5 * MINUTE);
      await reconciler.run();
      await h.watch();
      await h.settle(30_000);
      await h.watch();
    }
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
    expect(h.ebs.volume(ebsVolumeId)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
  });

  it('an attachment waiting for its single-attach volume whose volume was moved in the console to its own instance records that attach, with no EC2 call', async () => {
    const { h, reconciler, ebsVolumeId } = await attachedVolume();
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.watch();
    await h.settle(30_000);
    expect((await h.store.get(attachmentKey('data-1', OTHER_INSTANCE)))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' });
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, device: attached.device! });
    await h.settle(30_000);
    await h.ebs.attachVolume({ ebsVolumeId, instanceId: OTHER_INSTANCE, device: '/dev/sdq' });
    await h.settle(30_000);
    const calls = { ...h.ebs.calls };
    await h.clock.advance(10 * MINUTE);

    expect((await reconciler.run()).requeued).toContainEqual({
      key: `attachment/data-1/${OTHER_INSTANCE}`,
      reason: `EC2 shows ${ebsVolumeId} attached to ${OTHER_INSTANCE}, which the attachment waits to attach`,
    });
    await h.drain();
    await h.watch();
    await h.settle(30_000);
    const moved = (await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))) as AttachmentRecord;
    expect(moved).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdq' });
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' });
    expect({ ...h.ebs.calls, DescribeVolumes: 0, DescribeInstances: 0 }).toEqual({ ...calls, DescribeVolumes: 0, DescribeInstances: 0 });
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
  });

  it('looks once a pass at a modification EC2 is making for hours, saying it is under way since it began, not that it makes no progress; one chain of checks, one ModifyVolume', async () => {
    const h = await iopsModification({ modify: 3 * 60 * MINUTE, optimize: 1000 });
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    const since = (await volumeOf(h)).status.operationStartedAt;
    expect(since).toBeDefined();
    const reasons = new Set<string>();
    for (let pass = 0; pass < 48 && (await volumeOf(h)).status.state === 'modifying'; pass++) {
      await h.settle(5 * MINUTE, 10_000);
      for (const { key, reason } of (await reconciler.run()).requeued) if (key === 'volume/data-1') reasons.add(reason);
      // The look adds no chain of checks of its own.
      expect(h.queue.pending().filter((p) => p.message.op === 'check-volume' && !p.message.nudge).length).toBeLessThanOrEqual(1);
    }
    expect([...reasons]).toEqual([`modification under way since ${since}; looked at once per pass`]);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 } });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('a volume creating or deleting for long is re-enqueued saying its state since its operation began and that it is looked at once per pass, not that it makes no progress', async () => {
    const env = setup();
    const started = '2026-02-28T00:00:00.000Z';
    const written = '2026-02-28T00:05:00.000Z';
    await env.store.create(volume('restoring', started, { ebsVolumeId: 'vol-00000000000000abc', status: { state: 'creating', attempts: 0, updatedAt: written, operationStartedAt: started } }));
    await env.store.create(volume('going', started, { life: 'dying', ebsVolumeId: 'vol-00000000000000abd', status: { state: 'deleting', attempts: 0, updatedAt: written, operationStartedAt: started } }));
    await env.store.create(volume('unstarted', started, { ebsVolumeId: 'vol-00000000000000abe', status: { state: 'creating', attempts: 0, updatedAt: written } }));
    const reasons = Object.fromEntries((await env.reconciler.run()).requeued.map((r) => [r.key, r.reason]));
    expect(reasons).toEqual({
      'volume/restoring': `creating since ${started}; looked at once per pass`,
      'volume/going': `deleting since ${started}; looked at once per pass`,
      'volume/unstarted': `creating since ${written}; looked at once per pass`,
    });
  });

  it('an attachment whose wait went stale (the stream batch with its volume going into error was lost) is looked at once: it says what it waits for now, with no EC2 call', async () => {
    const h = harness();
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'the volume cannot be made'));
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.settle(5000);
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });
    // The volume's change into error never reaches the watcher: the attachment still says it waits for the volume to become available.
    expect(h.changes.splice(0).map((change) => (change.newRecord as VolumeRecord | undefined)?.status.state)).toContain('error');
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to become available' });
    await h.clock.advance(10 * MINUTE);

    const waits = 'volume data-1 is in error: InvalidParameterValue; the attach waits until the volume is retried';
    expect((await reconciler.run()).requeued).toEqual([{ key: `attachment/data-1/${INSTANCE}`, reason: `its status does not say what it waits for now: ${waits}` }]);
    const calls = { ...h.ebs.calls };
    expect(h.queued()).toEqual([{ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
    await h.drain();
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: waits, attempts: 0 });
    expect(h.ebs.calls).toEqual(calls);
    // Said once: the next pass leaves it alone.
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
  });

  it.each(['/dev/sdk', 'xvdk'])('notices an attachment detached and attached again outside under another device name (%s): the record names the device EC2 shows, with no EC2 call', async (renamed) => {
    const { h, reconciler, ebsVolumeId } = await attachedVolume();
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, device: attached.device! });
    await h.settle(30_000);
    await h.ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: renamed });
    await h.settle(30_000);
    const calls = { ...h.ebs.calls };
    await h.clock.advance(10 * MINUTE);

    expect((await reconciler.run()).requeued).toContainEqual({
      key: `attachment/data-1/${INSTANCE}`,
      reason: `EC2 shows ${ebsVolumeId} attached to ${INSTANCE} as ${renamed}, the record says ${attached.device}`,
    });
    await h.drain();
    const record = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(record.device).toBe(renamed);
    expect(record.status).toMatchObject({ state: 'attached', attempts: 0, message: `EC2 shows it attached as ${renamed} (attached again outside the provisioner)` });
    expect({ ...h.ebs.calls, DescribeVolumes: 0 }).toEqual({ ...calls, DescribeVolumes: 0 });
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);

    // Still a valid record the system acts on: deleting it detaches.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.settle(30_000);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });

  it('takes an attachment EC2 reports with no device name for one it cannot compare, not for one attached under another: no drift, nothing re-enqueued', async () => {
    const { h, reconciler, ebsVolumeId } = await attachedVolume();
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(attached.device).toBeDefined();
    const describe = h.ebs.describeVolumes.bind(h.ebs);
    h.ebs.describeVolumes = async (ids) => (await describe(ids)).map((v) => ({ ...v, attachments: v.attachments.map((a) => ({ ...a, device: '' })) }));
    expect((await h.ebs.describeVolumes([ebsVolumeId]))[0]?.attachments).toEqual([{ instanceId: INSTANCE, device: '', state: 'attached' }]);
    await h.clock.advance(10 * MINUTE);

    expect((await reconciler.run()).requeued).toEqual([]);
    expect(h.queued()).toEqual([]);
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).device).toBe(attached.device);
  });

  const gone = (ebsVolumeId?: string) =>
    `volume data-1${ebsVolumeId ? ` (${ebsVolumeId})` : ''} no longer exists in EC2 (deleted outside the provisioner); waiting for it to be created again`;

  it('notices an attachment whose volume was deleted behind its back: back to pending, waiting for the volume; a retry of the volume attaches it again', async () => {
    const { h, reconciler, ebsVolumeId } = await attachedVolume();
    h.ebs.deleteBehindBack(ebsVolumeId);
    await h.clock.advance(10 * MINUTE);
    const report = await reconciler.run();
    expect(report.requeued).toEqual(
      expect.arrayContaining([
        { key: `attachment/data-1/${INSTANCE}`, reason: `EC2 no longer has ${ebsVolumeId}` },
        { key: 'volume/data-1', reason: `EC2 no longer has ${ebsVolumeId}` },
      ]),
    );
    const messages = h.queue.pending().map((p) => p.message);
    await h.drain();
    const waiting = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(waiting.status).toMatchObject({ state: 'pending', message: gone(ebsVolumeId), attempts: 0 });
    expect(waiting.status.code).toBeUndefined();
    expect(waiting.device).toBeUndefined();
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
    // Delivered again, the reconciler's messages find the attachment waiting for its volume in error: no EC2 call.
    await h.executor.run(h.batchOf(...messages));
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({
      state: 'pending',
      message: 'volume data-1 is in error: InvalidVolume.NotFound; the attach waits until the volume is retried',
    });
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(h.ebs.calls.DetachVolume ?? 0).toBe(0);
    // Nothing left to nudge.
    await h.watch();
    await h.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: 2 });
    for (let i = 0; i < 60 && (await h.store.get(attachmentKey('data-1')))?.status.state !== 'attached'; i++) {
      await h.watch();
      await h.settle(1000);
    }
    const renewed = ((await h.store.get(volumeKey('data-1'))) as VolumeRecord).ebsVolumeId!;
    expect(renewed).not.toBe(ebsVolumeId);
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.volume(renewed)?.attachments.map((a) => a.instanceId)).toEqual([INSTANCE]);
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('an attached attachment whose volume record forgot its vanished volume leaves attached on the next pass, with no DescribeVolumes for it', async () => {
    const { h, reconciler, ebsVolumeId } = await attachedVolume();
    h.ebs.deleteBehindBack(ebsVolumeId);
    // A check of the volume (its own message) found it gone; the stream's change was lost.
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    h.changes.splice(0);
    const forgotten = (await h.store.get(volumeKey('data-1'))) as VolumeRecord;
    expect(forgotten.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
    expect(forgotten.ebsVolumeId).toBeUndefined();
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
    await h.clock.advance(10 * MINUTE);
    const report = await reconciler.run();
    expect(report.requeued).toEqual([{ key: `attachment/data-1/${INSTANCE}`, reason: 'work pending (volume data-1 no longer exists in EC2)' }]);
    const describes = h.ebs.calls.DescribeVolumes;
    await h.drain();
    expect(h.ebs.calls.DescribeVolumes).toBe(describes);
    const waiting = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    // Its volume record, in error, waits for its client's retry: the status says so, not that the volume is coming back.
    expect(waiting.status).toMatchObject({ state: 'pending', message: 'volume data-1 is in error: InvalidVolume.NotFound; the attach waits until the volume is retried', attempts: 0 });
    expect(waiting.device).toBeUndefined();
    expect(h.queue.pending()).toEqual([]);
  });

  it('does not take an attachment whose volume is missing from one describe soon after the attach for a deleted volume', async () => {
    const { h, ebsVolumeId } = await attachedVolume();
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    h.ebs.deleteBehindBack(ebsVolumeId);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).version).toBe(attached.version);
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({ state: 'pending', message: gone(ebsVolumeId) });
  });

  it('does not take a fresh attachment missing from one describe for a detach: a late check finds it too soon to tell', async () => {
    const { h, ebsVolumeId } = await attachedVolume();
    const attached = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE, device: attached.device! });
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).version).toBe(attached.version);

    // Once the attachment has stood past the describe grace, the same check is believed.
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(((await h.store.get(attachmentKey('data-1'))) as AttachmentRecord).status.state).toBe('pending');
  });
});

describe("Reconciler passes bounded by the invocation's time", () => {
  const SCAN_REQUEST_MS = 10_000;

  /** A reconciler of four segments and pages of five, whose every scan request takes 10 s of the fake clock. */
  function slowScan(env: ReturnType<typeof setup>, overrides: { log?: RecordingLog; metrics?: Metrics; segments?: number } = {}) {
    const list = env.store.list.bind(env.store);
    env.store.list = async (options) => {
      await env.clock.advance(SCAN_REQUEST_MS);
      return list(options);
    };
    return new Reconciler({
      store: env.store,
      queue: env.queue,
      provider: env.ebs,
      clock: env.clock,
      metrics: overrides.metrics ?? env.metrics,
      log: overrides.log ?? silentLog,
      config: { ownerTagValue: OWNER, reconcilerScanSegments: overrides.segments ?? 4 },
      pageSize: 5,
    });
  }

  /** Metrics that keep every data point, so a count of 0 is told from no count at all; and the passes counted. */
  function leakCounts(): { metrics: Metrics; published: number[]; passes: () => number } {
    const published: number[] = [];
    let passes = 0;
    const count = (name: string, value = 1) => {
      if (name === METRICS.leaked) published.push(value);
      if (name === METRICS.reconcilerPasses) passes += value;
    };
    return { published, passes: () => passes, metrics: { operation: () => undefined, count } };
  }

  it('stops starting scan requests with its reserve left, and the passes that follow cover the rest: every stale record re-enqueued within as many passes as segments', async () => {
    const env = setup();
    const log = new RecordingLog();
    const at = new Date(env.clock.now()).toISOString();
    const keys = Array.from({ length: 40 }, (_, i) => `lost-${i}`);
    for (const id of keys) await env.store.create(volume(id, at));
    await env.clock.advance(10 * MINUTE);
    const reconciler = slowScan(env, { log });
    // Six scan requests of five records: fewer than the table holds, more than its largest segment needs.
    const budget = SCAN_RESERVE_MS + 6 * SCAN_REQUEST_MS - 1;

    const reports: ReconcileReport[] = [];
    for (let pass = 0; pass < 4; pass++) {
      const startedAt = env.clock.now();
      reports.push(await reconciler.run({ remainingTimeMs: budget }));
      // The last request began before the reserve.
      expect(env.clock.now() - startedAt).toBeLessThanOrEqual(budget - SCAN_RESERVE_MS + SCAN_REQUEST_MS);
      await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    }
    const first = reports[0]!;
    expect(first.scanned).toBeLessThanOrEqual(30);
    expect(first.segments.total).toBe(4);
    expect(first.segments.done).toBeGreaterThanOrEqual(1);
    expect(first.segments.done).toBeLessThan(4);
    const left = log.entries.find((entry) => entry.message === 'reconciler pass ran out of time; the next passes take up the rest')!;
    expect(left.level).toBe('warn');
    expect(left.attributes).toMatchObject({ segmentsDone: first.segments.done, segmentsTotal: 4, leakCheck: 'complete' });
    expect(left.attributes!.segmentsLeft).toHaveLength(4 - first.segments.done);
    // Each pass begins one segment further, so four passes have each begun with a different one.
    const covered = new Set(reports.flatMap((report) => report.requeued.map((r) => r.key)));
    expect([...covered].sort()).toEqual(keys.map((id) => `volume/${id}`).sort());
    // Cut short in a later segment, not in the one it began with: its segments fit in a pass.
    expect(log.entries.map((entry) => entry.message)).not.toContain('a table segment holds more than one pass can scan; raise reconcilerScanSegments');
  });

  it('with one segment a pass short of time starts over each time and never reaches the tail, and says so', async () => {
    const env = setup();
    const log = new RecordingLog();
    const at = new Date(env.clock.now()).toISOString();
    for (let i = 0; i < 12; i++) await env.store.create(volume(`lost-${String(i).padStart(2, '0')}`, at));
    await env.clock.advance(10 * MINUTE);
    const reconciler = slowScan(env, { log, segments: 1 });
    const passes: string[][] = [];
    for (let pass = 0; pass < 3; pass++) {
      passes.push((await reconciler.run({ remainingTimeMs: SCAN_RESERVE_MS + SCAN_REQUEST_MS })).requeued.map((r) => r.key));
      await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    }
    expect(passes[0]).toHaveLength(5);
    expect(passes[1]).toEqual(passes[0]);
    expect(passes[2]).toEqual(passes[0]);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'a table segment holds more than one pass can scan; raise reconcilerScanSegments',
      attributes: { segment: 0, recordsScanned: 5, segmentsTotal: 1 },
    });
  });

  it('reports no volume as leaked because its record is in a segment the pass did not reach: those are judged by the record their tag names', async () => {
    const env = setup();
    const now = new Date(env.clock.now()).toISOString();
    for (let i = 0; i < 20; i++) {
      const { ebsVolumeId } = await ownedVolume(env, `owned-${i}`);
      await env.store.create(volume(`owned-${i}`, now, { ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: now } }));
    }
    const orphan = await ownedVolume(env, 'nobody');
    const { metrics, published } = leakCounts();
    const reconciler = slowScan(env, { metrics });
    const report = await reconciler.run({ remainingTimeMs: SCAN_RESERVE_MS + SCAN_REQUEST_MS });
    expect(report.scanned).toBeLessThanOrEqual(5);
    expect(report.segments.done).toBeLessThan(4);
    expect(report.leaked).toEqual([orphan.ebsVolumeId]);
    expect(report.leakCheckComplete).toBe(true);
    expect(published).toEqual([1]);
  });

  it('judges records in pages of at most its page size across segments: one DescribeVolumes of at most that many ids a page', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    for (let i = 0; i < 12; i++) {
      const id = `at-rest-${i}`;
      const { ebsVolumeId } = await ownedVolume(env, id);
      await env.store.create(volume(id, at, { ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: at }, observed: { sizeGiB: 10, volumeType: 'gp3' } }));
    }
    const described: number[] = [];
    const describe = env.ebs.describeVolumes.bind(env.ebs);
    env.ebs.describeVolumes = async (ids) => {
      described.push(ids.length);
      return describe(ids);
    };
    const report = await slowScan(env).run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 });
    expect(report.scanned).toBe(12);
    expect(described.reduce((sum, n) => sum + n, 0)).toBe(12);
    expect(Math.max(...described)).toBeLessThanOrEqual(5);
  });

  it('a volume naming no record that no record holds is reported as leaked by a pass over the whole table', async () => {
    const env = setup();
    const orphan = await ownedVolume(env, 'nobody');
    env.ebs.retagBehindBack(orphan.ebsVolumeId, { [OWNERSHIP_TAGS.owner]: OWNER });
    const { metrics, published } = leakCounts();
    const report = await slowScan(env, { metrics }).run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 });
    expect(report).toMatchObject({ segments: { done: 4, total: 4 }, leakCheckComplete: true, leaked: [orphan.ebsVolumeId] });
    expect(published).toEqual([1]);
  });

  /** A volume with a record ('kept'), its record tag removed by someone: only a scan that reaches the record knows whose it is. */
  async function recordedVolumeWithoutRecordTag(env: ReturnType<typeof setup>) {
    const now = new Date(env.clock.now()).toISOString();
    const untagged = await ownedVolume(env, 'kept');
    await env.store.create(volume('kept', now, { ebsVolumeId: untagged.ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: now } }));
    env.ebs.retagBehindBack(untagged.ebsVolumeId, { [OWNERSHIP_TAGS.owner]: OWNER });
    return untagged;
  }

  it('publishes no leak count on a pass that did not judge every owned volume, unless it found leaks; a volume naming no record waits for a pass over the whole table', async () => {
    const env = setup();
    const untagged = await recordedVolumeWithoutRecordTag(env);
    const log = new RecordingLog();
    const { metrics, published, passes } = leakCounts();
    const reconciler = slowScan(env, { metrics, log });

    // Too little time to scan anything: no leak count, but the pass counts itself (the heartbeat an alarm counts).
    const partial = await reconciler.run({ remainingTimeMs: SCAN_RESERVE_MS - 1 });
    expect(partial).toMatchObject({ scanned: 0, leaked: [], segments: { done: 0, total: 4 }, leakCheckComplete: false });
    expect(published).toEqual([]);
    expect(passes()).toBe(1);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'owned volumes without a record tag are judged only by a pass that scans the whole table',
      attributes: { ebsVolumeIds: [untagged.ebsVolumeId] },
    });

    const complete = await reconciler.run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 });
    expect(complete).toMatchObject({ scanned: 1, leaked: [], segments: { done: 4, total: 4 }, leakCheckComplete: true });
    expect(published).toEqual([0]);

    // Time for one listing page of one volume: the leak it finds is counted, the rest is not looked at.
    const orphans = [await ownedVolume(env, 'nobody-1'), await ownedVolume(env, 'nobody-2')];
    const listOwned = env.ebs.listOwnedVolumes.bind(env.ebs);
    env.ebs.listOwnedVolumes = async (options) => {
      await env.clock.advance(SCAN_REQUEST_MS);
      return listOwned({ ...options, limit: 1 });
    };
    const owned = env.ebs.volumes().filter((v) => v.tags[OWNERSHIP_TAGS.owner] === OWNER);
    expect(owned[0]!.ebsVolumeId).toBe(untagged.ebsVolumeId);
    const stopped = await reconciler.run({ remainingTimeMs: WRAP_UP_RESERVE_MS + 2 * SCAN_REQUEST_MS - 1 });
    expect(stopped).toMatchObject({ scanned: 0, leaked: [orphans[0]!.ebsVolumeId], leakCheckComplete: false });
    expect(published).toEqual([0, 1]);
    expect(log.entries.at(-1)).toEqual({
      level: 'warn',
      message: 'reconciler pass ran out of time; the next passes take up the rest',
      attributes: { segmentsDone: 0, segmentsTotal: 4, segmentsLeft: expect.any(Array), leakCheck: 'stopped after 2 owned volumes' },
    });
  });

  it('a pass out of time before reaching the record of a volume without a record tag does not call its leak check complete in its warning', async () => {
    const env = setup();
    await recordedVolumeWithoutRecordTag(env);
    const log = new RecordingLog();
    const report = await slowScan(env, { log }).run({ remainingTimeMs: SCAN_RESERVE_MS - 1 });
    expect(report.leakCheckComplete).toBe(false);
    expect(log.entries.find((entry) => entry.message === 'reconciler pass ran out of time; the next passes take up the rest')?.attributes).toMatchObject({
      leakCheck: 'all 1 owned volumes listed; 1 without a record tag not judged',
    });
  });

  it("begins each pass with the segment after the last by the schedule's time, however late each pass starts", async () => {
    const env = setup();
    const firstSegments: number[] = [];
    const list = env.store.list.bind(env.store);
    let passStarted = false;
    env.store.list = async (options) => {
      if (passStarted) firstSegments.push(options.segment!.index);
      passStarted = false;
      return list(options);
    };
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, clock: env.clock, metrics: env.metrics, log: silentLog, config: { ownerTagValue: OWNER, reconcilerScanSegments: 8 } });
    const interval = RECONCILER.intervalMinutes * MINUTE;
    // Fired on the schedule's minute every five minutes; delivered and started up to a minute later, across a boundary of the interval.
    const base = Math.ceil(env.clock.now() / interval) * interval + interval - MINUTE;
    const passes = [
      { scheduledAt: base, startsAt: base + 59_999 },
      { scheduledAt: base + interval, startsAt: base + interval + MINUTE + 500 },
      { scheduledAt: base + 2 * interval, startsAt: base + 2 * interval + 59_999 },
    ];
    for (const { scheduledAt, startsAt } of passes) {
      await env.clock.advance(startsAt - env.clock.now());
      passStarted = true;
      await reconciler.run({ scheduledAt });
    }
    const [a, b, c] = firstSegments as [number, number, number];
    expect([(b - a + 8) % 8, (c - b + 8) % 8]).toEqual([1, 1]);
  });

  it('a failed listing of owned volumes leaves the leak check unfinished, not the pass: its re-enqueued work and heartbeat stand', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    await env.store.create(volume('lost', at));
    await env.clock.advance(10 * MINUTE);
    const log = new RecordingLog();
    const { metrics, published, passes } = leakCounts();
    const reconciler = slowScan(env, { metrics, log });
    env.ebs.listOwnedVolumes = async () => {
      throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    };
    const report = await reconciler.run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 });
    expect(report).toMatchObject({ scanned: 1, requeued: [{ key: 'volume/lost' }], segments: { done: 4, total: 4 }, leakCheckComplete: false });
    expect(env.queue.pending().map((p) => keyString(p.message.key))).toEqual(['volume/lost']);
    expect(passes()).toBe(1);
    expect(published).toEqual([]);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'could not list owned volumes; the leak check waits for the next pass',
      attributes: { code: 'RequestLimitExceeded', error: 'Request limit exceeded.', listedSoFar: 0 },
    });
    expect(log.entries.map((entry) => entry.message)).not.toContain('reconciler pass ran out of time; the next passes take up the rest');

    // A permission lost is no passing fault: the pass fails, so its alarm fires, rather than a warning every pass.
    env.ebs.listOwnedVolumes = async () => {
      throw new ProviderError('unauthorized', 'UnauthorizedOperation', 'You are not authorized to perform this operation.');
    };
    await expect(reconciler.run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 })).rejects.toThrow('not authorized');
    expect(passes()).toBe(1);
  });

  it('a pass with time to spare behaves as one without a limit', async () => {
    const env = setup();
    const log = new RecordingLog();
    const at = new Date(env.clock.now()).toISOString();
    await env.store.create(volume('lost', at));
    await ownedVolume(env, 'nobody');
    await env.clock.advance(10 * MINUTE);
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, clock: env.clock, metrics: env.metrics, log, config: { ownerTagValue: OWNER } });
    const report = await reconciler.run({ remainingTimeMs: RECONCILER.timeoutSeconds * 1000 });
    expect(report).toMatchObject({ scanned: 1, requeued: [{ key: 'volume/lost' }], segments: { done: 8, total: 8 }, leakCheckComplete: true });
    expect(report.leaked).toHaveLength(1);
    expect(log.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message)).toEqual(['volumes owned by this deployment have no record; not deleting them']);
  });
});

describe('Reconciler: work legitimately waiting is not nudged every pass', () => {

  it('does not nudge every pass a volume or attachment in error whose status still names a next attempt: nothing is tried until its client retries it', async () => {
    const env = setup();
    const old = '2026-02-28T00:00:00.000Z';
    const status = { state: 'error' as const, code: 'VolumeLimitExceeded', message: 'gave up', attempts: 8, updatedAt: old, nextAttemptAt: '2026-02-28T00:01:00.000Z' };
    // As a client or a restore writes it into the table: in error, its status naming a next attempt long past.
    await env.store.create(volume('failed', old, { status }));
    const { ebsVolumeId } = await env.ebs.createVolume({ clientToken: 'held', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'held' } });
    await env.store.create(volume('held', old, { ebsVolumeId, observed: { sizeGiB: 10, volumeType: 'gp3' }, status: { state: 'available', attempts: 0, updatedAt: old } }));
    await env.store.create({ ...newAttachment('held'), status: { ...status, code: 'InvalidInstanceID.NotFound' } });
    const passes: string[][] = [];
    for (let pass = 0; pass < 3; pass++) {
      passes.push((await env.reconciler.run()).requeued.map((r) => r.key));
      await drain(env);
      await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    }
    // The executor's look changes nothing (a record in error waits for its client): a nudge a pass would go on for ever.
    expect(passes.slice(1)).toEqual([[], []]);
    expect(((await env.store.get(volumeKey('failed'))) as VolumeRecord).status).toMatchObject({ state: 'error', code: 'VolumeLimitExceeded' });
    expect(env.ebs.calls.CreateVolume).toBe(1);
  });
  it('leaves alone a retry whose next attempt is past while its call waits in line for its bucket\'s tokens (its message holds its place); nudges it once the line is gone', async () => {
    const env = setup();
    const budget = new MemoryRateBudget();
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, rateBudget: budget, clock: env.clock, metrics: env.metrics, log: silentLog, config: { ownerTagValue: OWNER } });
    const at = new Date(env.clock.now()).toISOString();
    // EC2 throttled its CreateVolume: it was to be tried again a few seconds later, and was, only to find the line below.
    const retryAt = new Date(env.clock.now() + 5_000).toISOString();
    await env.store.create(volume('throttled', at, { status: { state: 'pending', code: 'RequestLimitExceeded', message: 'Request limit exceeded.', attempts: 0, updatedAt: at, nextAttemptAt: retryAt } }));
    // A burst took CreateVolume tokens 20 minutes ahead: its call, deferred with its token taken, waits in that line (no status write).
    const { burst, ratePerSecond } = DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume;
    await budget.take('CreateVolume', burst + 20 * 60 * ratePerSecond, DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume, env.clock.now(), 3_600_000);
    await env.clock.advance(10 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([]);
    await env.clock.advance(11 * MINUTE);
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/throttled', reason: expect.stringContaining('next attempt was due') }]);
  });
});

describe('Reconciler: no-call work whose stream change was lost', () => {

  it('shows why a spec EBS cannot make is not carried out when the watcher never saw it (a shrink written into the table, its stream batch given up)', async () => {
    const env = setup();
    const old = '2026-02-28T00:00:00.000Z';
    const { ebsVolumeId } = await env.ebs.createVolume({ clientToken: 'shrunk', availabilityZone: 'us-east-1a', spec: { sizeGiB: 20, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'shrunk' } });
    await env.clock.advance(MINUTE);
    await env.store.create(
      volume('shrunk', old, {
        ebsVolumeId,
        availabilityZone: 'us-east-1a',
        generation: 2,
        observedGeneration: 1,
        observed: { sizeGiB: 20, volumeType: 'gp3', tags: {} },
        status: { state: 'available', attempts: 0, updatedAt: old },
      }),
    );
    expect((await env.reconciler.run()).requeued.map((r) => r.key)).toEqual(['volume/shrunk']);
    await drain(env);
    expect(((await env.store.get(volumeKey('shrunk'))) as VolumeRecord).status).toMatchObject({ state: 'available', code: 'InvalidSpecChange' });
    expect(env.ebs.calls.ModifyVolume).toBe(0);
    await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([]);
  });
  it("records a spec change EC2 already holds when the watcher never saw it (a stream batch given up): observedGeneration catches up", async () => {
    const env = setup();
    const old = '2026-02-28T00:00:00.000Z';
    const { ebsVolumeId } = await env.ebs.createVolume({ clientToken: 'same', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3', iops: 3000 }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'same' } });
    await env.clock.advance(MINUTE);
    expect((await env.ebs.describeVolumes([ebsVolumeId]))[0]?.state).toBe('available');
    // Generation 2 cleared the IOPS the volume has at gp3's baseline: EC2 already holds it, no call to make; only observedGeneration to write, which the watcher would have.
    await env.store.create(
      volume('same', old, {
        ebsVolumeId,
        availabilityZone: 'us-east-1a',
        generation: 2,
        observedGeneration: 1,
        observed: { sizeGiB: 10, volumeType: 'gp3', iops: 3000, tags: {} },
        status: { state: 'available', attempts: 0, updatedAt: old },
      }),
    );
    const report = await env.reconciler.run();
    expect(report.requeued.map((r) => r.key)).toEqual(['volume/same']);
    await drain(env);
    expect(((await env.store.get(volumeKey('same'))) as VolumeRecord).observedGeneration).toBe(2);
    expect(env.ebs.calls.ModifyVolume).toBe(0);
    await env.clock.advance(RECONCILER.intervalMinutes * MINUTE);
    expect((await env.reconciler.run()).requeued).toEqual([]);
  });
});

describe('Reconciler: leaks judged against the table and EC2 as they are then', () => {
  it('does not judge an owned volume EC2 lists as deleting or deleted: neither reported nor looked at again', async () => {
    const env = setup();
    const leaked = await ownedVolume(env, 'nobody');
    const deleting = await ownedVolume(env, 'deleting');
    const deleted = await ownedVolume(env, 'deleted');
    const list = env.ebs.listOwnedVolumes.bind(env.ebs);
    const listedAs = new Map([[deleting.ebsVolumeId, 'deleting' as const], [deleted.ebsVolumeId, 'deleted' as const]]);
    env.ebs.listOwnedVolumes = async (options) => {
      const page = await list(options);
      return { ...page, items: page.items.map((v) => ({ ...v, state: listedAs.get(v.ebsVolumeId) ?? v.state })) };
    };
    const describe = env.ebs.describeVolumes.bind(env.ebs);
    const described: string[][] = [];
    env.ebs.describeVolumes = async (ids) => {
      described.push([...ids]);
      return describe(ids);
    };
    const report = await env.reconciler.run();
    expect(report.leaked).toEqual([leaked.ebsVolumeId]);
    expect(described).toEqual([[leaked.ebsVolumeId]]);
  });

  it('judges volumes no record owns as listed when EC2 cannot be asked whether it still holds them; a failure that is not an EC2 error fails the pass', async () => {
    const env = setup();
    const leaked = await ownedVolume(env, 'nobody');
    let failure: Error = new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
    let describes = 0;
    env.ebs.describeVolumes = async () => {
      describes++;
      throw failure;
    };
    expect(await env.reconciler.run()).toMatchObject({ leaked: [leaked.ebsVolumeId], leakCheckComplete: true });
    expect(describes).toBe(1);

    failure = new TypeError("Cannot read properties of undefined (reading 'Volumes')");
    await expect(env.reconciler.run()).rejects.toThrow(failure);
  });

  it('does not report the volume of a record created after the scan passed it and deleted (volume and record) before the listing ended', async () => {
    const env = setup();
    const at = new Date(env.clock.now()).toISOString();
    // Enough owned volumes, each held by its record, for the listing to take several pages.
    for (let i = 0; i < 12; i++) {
      const { ebsVolumeId } = await env.ebs.createVolume({ clientToken: `held-${i}`, availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: `held-${i}` } });
      await env.store.create(volume(`held-${i}`, at, { ebsVolumeId, status: { state: 'available', attempts: 0, updatedAt: at } }));
    }
    const metrics = new RecordingMetrics();
    const reconciler = new Reconciler({ store: env.store, queue: env.queue, provider: env.ebs, clock: env.clock, metrics, log: silentLog, config: { ownerTagValue: OWNER }, pageSize: 5 });
    const listOwned = env.ebs.listOwnedVolumes.bind(env.ebs);
    let listings = 0;
    let ephemeral = '';
    env.ebs.listOwnedVolumes = async (options) => {
      listings++;
      if (listings === 1) {
        // Written after the scan passed its key, and created in EC2 at once: the first page lists its volume.
        ephemeral = (await env.ebs.createVolume({ clientToken: 'ephemeral', availabilityZone: 'us-east-1a', spec: { sizeGiB: 10, volumeType: 'gp3' }, tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'ephemeral' } })).ebsVolumeId;
        await env.store.create(volume('ephemeral', at, { ebsVolumeId: ephemeral, status: { state: 'available', attempts: 0, updatedAt: at } }));
        const page = await listOwned({ ...options, cursor: String(12) });
        return { ...page, cursor: '0' };
      }
      if (listings === 2) {
        // Deleted as asked while the rest is listed: EC2 deletes the volume, the record goes.
        await env.clock.advance(MINUTE);
        await env.ebs.deleteVolume(ephemeral);
        await env.store.remove(volumeKey('ephemeral'));
      }
      return listOwned(options);
    };
    const report = await reconciler.run();
    expect(report.leakCheckComplete).toBe(true);
    expect(report.leaked).toEqual([]);
    expect(metrics.counter(METRICS.leaked)).toBe(0);
  });
});
