import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, RecordKey, VolumeRecord } from '../../lib/domain/records.js';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import { ProviderError, type OperationKind, type OperationMessage, type ProviderVolume, type QueuedOperation, type RecordStore, type SharedRateBudget, type VolumeProvider } from '../../lib/engine/ports.js';
import { Executor, createVolumeClientToken } from '../../lib/engine/executor.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { RecordingLog, silentLog } from '../../lib/memory/log.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { FUTURE_MODIFICATION_START_LOG } from '../../lib/engine/without-call.js';
import { toProviderError } from '../../lib/aws/ec2-errors.js';
import { realEc2Error } from '../support/ec2-errors.js';
import {
  attachmentKey,
  attachmentOf,
  AZ,
  executorLosingWriteAfterCreate,
  harness,
  INSTANCE,
  newAttachment,
  newVolume,
  OTHER_INSTANCE,
  providerOver,
  START,
  volumeKey,
  volumeOf,
} from './engine-fixtures.js';

/**
 * Creates deferred for want of a rate token, before their claim: each record untouched (first
 * version, no attempt used) and a create message due after `delays[id]` seconds.
 */
async function expectDeferredCreates(h: ReturnType<typeof harness>, delays: Record<string, number>) {
  for (const id of Object.keys(delays)) expect(await volumeOf(h, id)).toMatchObject({ version: 1, status: { state: 'pending', attempts: 0 } });
  expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual(Object.entries(delays).map(([key, delaySeconds]) => ({ op: 'create-volume', key, delaySeconds })));
}

/** A volume that exists in EC2 and is available, with its record to match. */
async function availableVolume(h: ReturnType<typeof harness>, volumeId: string, extra: Partial<VolumeRecord> = {}) {
  await h.store.create(newVolume(volumeId, extra));
  await h.executor.run(h.batchOf(h.op('create-volume', volumeKey(volumeId))));
  await h.settle(30_000);
  const volume = await volumeOf(h, volumeId);
  expect(volume.status.state).toBe('available');
  return volume;
}

/**
 * Marks the record dying, runs `op` (its detach or delete) and sees it in `state`, then writes it
 * back to alive straight into the table, as a client changing its mind while EC2 works, and lets
 * the watcher and the executor carry on.
 */
async function setBackToAliveDuring(h: ReturnType<typeof harness>, key: RecordKey, op: OperationKind, state: string) {
  await h.store.update(key, { life: 'dying' });
  await h.executor.run(h.batchOf(h.op(op, key)));
  expect((await h.store.get(key))?.status.state).toBe(state);
  await h.store.update(key, { life: 'alive' });
  await watchUntilSettled(h);
}

/**
 * Sets `key` dying and runs `op` with an executor whose EC2 call `call` is made after the record
 * is set back to alive in the table: a client's write landing while the call is under way.
 */
async function setBackToAliveInCall(h: ReturnType<typeof harness>, key: RecordKey, op: OperationKind, call: 'detachVolume' | 'deleteVolume') {
  await h.store.update(key, { life: 'dying' });
  const made = h.ebs[call].bind(h.ebs) as (...args: unknown[]) => Promise<unknown>;
  const during = async (...args: unknown[]) => {
    await h.store.update(key, { life: 'alive' });
    return made(...args);
  };
  const provider = providerOver(h.ebs, { [call]: during } as Partial<VolumeProvider>);
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
  return executor.run(h.batchOf(h.op(op, key)));
}

/** A minute of the watcher planning from the changes and the executor running what it sends. */
async function watchUntilSettled(h: ReturnType<typeof harness>) {
  for (let i = 0; i < 6; i++) {
    await h.watch();
    await h.settle(10_000);
  }
}

/** An executor that sees EC2's DescribeVolumes answers as `describe` makes them look (a describe that lags, say), waiting for no rate token. */
function executorDescribing(h: ReturnType<typeof harness>, describe: (volume: ProviderVolume) => ProviderVolume): Executor {
  const provider = providerOver(h.ebs, { describeVolumes: async (ids) => (await h.ebs.describeVolumes(ids)).map(describe) });
  return new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
}

/** `ms` of the watcher planning and `executor` running what the queue holds, a second at a time. */
async function runFor(h: ReturnType<typeof harness>, executor: Executor, ms: number) {
  for (let spent = 0; spent < ms; spent += 1000) {
    await h.watch();
    const received = h.queue.receive(100);
    if (received.length > 0) await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
    for (const r of received) h.queue.delete(r.receiptHandle);
    await h.clock.advance(1000);
  }
}

/** An executor whose store lets `meanwhile` write right after the batch's bulk read, as a concurrent writer would. */
function executorWritingAfterRead(h: ReturnType<typeof harness>, meanwhile: () => Promise<void>): Executor {
  const store: RecordStore = Object.create(h.store);
  store.getMany = async (keys) => {
    const records = await h.store.getMany(keys);
    await meanwhile();
    return records;
  };
  return new Executor({ store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
}

/** A volume whose AttachVolume to INSTANCE has just been called. */
async function attachingVolume(h: ReturnType<typeof harness>, volumeId: string) {
  await availableVolume(h, volumeId);
  await h.store.create(newAttachment(volumeId));
  await h.executor.run(h.batchOf(h.op('attach', attachmentKey(volumeId))));
  expect((await attachmentOf(h, volumeId)).status.state).toBe('attaching');
}

/** A volume attached to INSTANCE in EC2, with records to match. */
async function attachedVolume(h: ReturnType<typeof harness>, volumeId: string) {
  await attachingVolume(h, volumeId);
  await h.settle(20_000);
  expect((await attachmentOf(h, volumeId)).status.state).toBe('attached');
}

describe('executor: create', () => {
  it('creates with an idempotency token and ownership tags, then checks until available', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { tags: { team: 'storage' } }));
    const { failedMessageIds } = await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(failedMessageIds).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(1);

    const creating = await volumeOf(h, 'data-1');
    expect(creating.status.state).toBe('creating');
    expect(creating.ebsVolumeId).toMatch(/^vol-/);
    expect(creating.claim).toBeUndefined();
    const [ebsVolume] = await h.ebs.describeVolumes([creating.ebsVolumeId!]);
    expect(ebsVolume!.tags).toMatchObject({ team: 'storage', [OWNERSHIP_TAGS.record]: 'data-1', [OWNERSHIP_TAGS.owner]: 'ebs-provisioner' });

    await h.settle(30_000);
    const available = await volumeOf(h, 'data-1');
    expect(available.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(available.observed).toMatchObject({ sizeGiB: 10, volumeType: 'gp3' });
    expect(available.observedGeneration).toBe(1);
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });

  it('derives a token of at most 64 printable characters from the record id, its creation time and the generation', () => {
    const createdAt = new Date(START).toISOString();
    const token = createVolumeClientToken('data-1', createdAt, 3);
    expect(token).toMatch(/^ebsp-data-1-[0-9a-f]{12}-g3$/);
    // Another incarnation of the same id (deleted, then created again) gets another token.
    expect(createVolumeClientToken('data-1', new Date(START + 1).toISOString(), 3)).not.toBe(token);
    expect(createVolumeClientToken('data-1', createdAt, 4)).not.toBe(token);
    // The longest id the schema allows, with the largest generation a number can hold.
    const longest = createVolumeClientToken('x'.repeat(128), createdAt, Number.MAX_VALUE);
    expect(longest).toMatch(/^[\x21-\x7e]{1,64}$/);
    expect(createVolumeClientToken('x'.repeat(128), createdAt, Number.MAX_SAFE_INTEGER)).toMatch(/^[\x21-\x7e]{1,64}$/);
    expect(createVolumeClientToken('x'.repeat(127), createdAt, 12)).not.toBe(createVolumeClientToken('x'.repeat(128), createdAt, 12));
    // The same token every time, however many other records' tokens were asked for between.
    expect(createVolumeClientToken('data-1', createdAt, 3)).toBe(token);
    for (let i = 0; i < 5000; i++) createVolumeClientToken(`other-${i}`, createdAt, 1);
    expect(createVolumeClientToken('data-1', createdAt, 3)).toBe(token);
  });

  it('a record deleted and created again under the same id gets a volume of its own', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    const first = (await volumeOf(h, 'data-1')).ebsVolumeId;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();

    // The same id again, the first time with the same spec, then (after its deletion) with another.
    for (const spec of [{}, { sizeGiB: 20 }]) {
      await h.store.create(newVolume('data-1', { createdAt: new Date(h.clock.now()).toISOString() }, spec));
      await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
      await h.settle(30_000);
      const again = await volumeOf(h, 'data-1');
      expect(again.status).toMatchObject({ state: 'available', attempts: 0 });
      expect(again.ebsVolumeId).not.toBe(first);
      expect(h.ebs.volume(again.ebsVolumeId!)).toMatchObject({ state: 'available', sizeGiB: spec.sizeGiB ?? 10 });
      await h.store.remove(volumeKey('data-1'));
      await h.ebs.deleteVolume(again.ebsVolumeId!);
      await h.clock.advance(5_000);
    }
    expect(h.ebs.calls.CreateVolume).toBe(3);
  });

  it('records its request before calling, and a record written without createdAt still gets a token of its own each time', async () => {
    const h = harness();
    const tokens: string[] = [];
    for (let incarnation = 0; incarnation < 2; incarnation++) {
      await h.store.create(newVolume('data-1', { createdAt: '' }));
      // The record as EC2 is called: the request is on it already.
      h.ebs.beforeCall = (action) => {
        if (action !== 'CreateVolume') return;
        const recorded = h.store.all().find((r) => r.kind === 'volume')?.createRequest;
        if (recorded) tokens.push(recorded.clientToken);
      };
      await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
      h.ebs.beforeCall = undefined;
      const volume = await volumeOf(h, 'data-1');
      expect(volume.ebsVolumeId).toMatch(/^vol-/);
      // Answered: kept as what EBS fixed at creation; the id now says the create is done with.
      expect(volume.createRequest?.clientToken).toBe(tokens[tokens.length - 1]);
      await h.store.remove(volumeKey('data-1'));
    }
    expect(tokens).toHaveLength(2);
    expect(tokens[0]).not.toBe(tokens[1]);
    expect(new Set(h.ebs.volumes().map((v) => v.ebsVolumeId)).size).toBe(2);
  });

  it('keeps the AZ it asked for when EC2 reports none (as some emulators do), so the record stays valid', async () => {
    const h = harness();
    const provider: VolumeProvider = Object.create(h.ebs);
    provider.createVolume = async (request) => ({ ...(await h.ebs.createVolume(request)), availabilityZone: '' });
    provider.describeVolumes = async (ids) => (await h.ebs.describeVolumes(ids)).map((volume) => ({ ...volume, availabilityZone: '' }));
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    await h.store.create(newVolume('data-1'));
    await executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.clock.advance(5000);
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status.state).toBe('available');
    expect(volume.availabilityZone).toBe(AZ);
  });

  it('a redelivered create after a lost status write never makes a second volume', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    // The pre-call write succeeds; the write after CreateVolume fails.
    const executor = executorLosingWriteAfterCreate(h);
    const batch = h.batchOf(h.op('create-volume', volumeKey('data-1')));
    expect((await executor.run(batch)).failedMessageIds).toEqual([batch[0]!.messageId]);
    expect((await volumeOf(h, 'data-1')).ebsVolumeId).toBeUndefined();

    // Redelivery after the claim expired: same token, same volume.
    await h.clock.advance(200_000);
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    const owned = await h.ebs.listOwnedVolumes({ limit: 100 });
    expect(owned.items).toHaveLength(1);
    expect((await volumeOf(h, 'data-1')).ebsVolumeId).toBe(owned.items[0]!.ebsVolumeId);
  });

  it('resolves the AZ of a placement instance with DescribeInstances', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.DescribeInstances).toBe(1);
    expect((await volumeOf(h, 'data-1')).availabilityZone).toBe(AZ);
  });

  it('waits for a placement instance EC2 does not know, then ends in error when its attempts run out, having created nothing', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: 'i-0000000000000dead' }));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'pending', code: 'InvalidInstanceID.NotFound', attempts: 1, message: expect.stringMatching(/^waiting: /) });
    await h.settle(3 * 3_600_000, 60_000);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ state: 'error', code: 'InvalidInstanceID.NotFound', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts });
    expect(volume.ebsVolumeId).toBeUndefined();
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
  });
});

describe('executor: device names of attaches to one instance made by two environments at once', () => {
  it('are different, with no AttachVolume refused for a name in use: each takes the free name at its place among the attaches waiting', async () => {
    const h = harness();
    for (const id of ['a', 'b']) await availableVolume(h, id);
    await h.store.create(newAttachment('a'));
    await h.store.create(newAttachment('b'));
    await h.watch();
    const received = h.queue.receive(100);
    // One attach message per attachment (the watcher plans each from its own change and from its volume's).
    const attaches = received.filter((r, i) => r.message.op === 'attach' && received.findIndex((o) => o.message.op === 'attach' && o.message.key.volumeId === r.message.key.volumeId) === i);
    expect(attaches.map((r) => r.message.key)).toEqual([attachmentKey('a'), attachmentKey('b')]);
    // Both environments read the instance's records before either writes its device.
    const [first, second] = [h.environment(), h.environment()];
    await Promise.all(attaches.map((r, i) => [first, second][i]!.run([{ messageId: r.messageId, message: r.message }])));
    const rest = received.filter((r) => !attaches.includes(r));
    await h.executor.run(rest.map((r) => ({ messageId: r.messageId, message: r.message })));
    for (const r of received) h.queue.delete(r.receiptHandle);
    await h.settle(30_000);
    const devices = await Promise.all(['a', 'b'].map(async (id) => (await attachmentOf(h, id)).device));
    expect(devices).toEqual(['/dev/sdf', '/dev/sdg']);
    expect(h.ebs.calls.AttachVolume).toBe(2);
    for (const id of ['a', 'b']) expect((await attachmentOf(h, id)).status.state).toBe('attached');
  });
});

/** Three available volumes (v0, a, b); the first of two environments attaches v0, as /dev/sdf. */
async function v0AttachedByTheFirstOfTwo(h: ReturnType<typeof harness>): Promise<[Executor, Executor]> {
  for (const id of ['v0', 'a', 'b']) await availableVolume(h, id);
  const [first, second] = [h.environment(), h.environment()];
  await h.store.create(newAttachment('v0'));
  await first.run(h.batchOf(h.op('attach', attachmentKey('v0'))));
  await h.settle(20_000);
  expect(await attachmentOf(h, 'v0')).toMatchObject({ device: '/dev/sdf', status: { state: 'attached' } });
  return [first, second];
}

/** v0 detached and its record removed. */
async function v0DetachedAndRemoved(h: ReturnType<typeof harness>) {
  await h.store.update<AttachmentRecord>(attachmentKey('v0'), { life: 'dying' });
  await h.watch();
  await h.settle(30_000);
  expect(await h.store.get(attachmentKey('v0'))).toBeUndefined();
}

/** Each environment attaches one of a and b at once: different names, neither refused. */
async function expectAttachesAtOnceNamedApart(h: ReturnType<typeof harness>, first: Executor, second: Executor) {
  await h.store.create(newAttachment('a'));
  await h.store.create(newAttachment('b'));
  await Promise.all([first.run(h.batchOf(h.op('attach', attachmentKey('a')))), second.run(h.batchOf(h.op('attach', attachmentKey('b'))))]);
  await h.settle(30_000);
  const devices = await Promise.all(['a', 'b'].map(async (id) => (await attachmentOf(h, id)).device));
  expect(devices).toEqual(['/dev/sdf', '/dev/sdg']);
  for (const id of ['a', 'b']) expect((await attachmentOf(h, id)).status).toMatchObject({ state: 'attached', attempts: 0 });
}

describe('executor: device names of attaches to one instance made by two environments at once, after a detach there', () => {
  it('are different: the environment that attached the volume since detached does not hold on to its name', async () => {
    const h = harness();
    const [first, second] = await v0AttachedByTheFirstOfTwo(h);
    await v0DetachedAndRemoved(h);
    // Within the first environment's description's lifetime.
    await expectAttachesAtOnceNamedApart(h, first, second);
    expect(h.ebs.calls.AttachVolume).toBe(3);
  });
});

describe('executor: an instance described while its attachment records could not be read', () => {
  it('is not kept for later batches: a name an attachment held then and let go of since is not held on to, and two environments attaching there at once name different devices', async () => {
    const h = harness();
    const [first, second] = await v0AttachedByTheFirstOfTwo(h);
    // The first environment describes the instance (placing a volume by it) while the read of its records fails: EC2 lists v0's /dev/sdf.
    await h.store.create(newVolume('placed', {}, { availabilityZone: undefined, placementInstanceId: INSTANCE }));
    h.store.failNext('attachmentsOfInstance', new Error('read failed'));
    const describedBefore = h.ebs.calls.DescribeInstances;
    await first.run(h.batchOf(h.op('create-volume', volumeKey('placed'))));
    expect(h.ebs.calls.DescribeInstances).toBe(describedBefore + 1);
    expect((await volumeOf(h, 'placed')).availabilityZone).toBe(AZ);
    await v0DetachedAndRemoved(h);
    // Within the hour.
    await expectAttachesAtOnceNamedApart(h, first, second);
  });
});

describe('executor: two attaches asking for the same device name in one batch', () => {
  it('the second is refused as a clash, with one AttachVolume made', async () => {
    const h = harness();
    for (const id of ['a', 'b']) await availableVolume(h, id);
    await h.store.create(newAttachment('a', { requestedDevice: '/dev/sdf' }));
    await h.store.create(newAttachment('b', { requestedDevice: '/dev/sdf' }));
    const before = h.ebs.calls.AttachVolume ?? 0;
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('a')), h.op('attach', attachmentKey('b'))));
    expect((h.ebs.calls.AttachVolume ?? 0) - before).toBe(1);
    expect((await attachmentOf(h, 'b')).status.code).toBe('DeviceNameClash');
  });
});

describe('executor: a device name another attachment to the instance asked for', () => {
  it('is not given to an attach that asked for none while that attachment waits for its volume: both attach, no AttachVolume refused', async () => {
    const h = harness();
    await availableVolume(h, 'a');
    await h.store.create(newVolume('b'));
    await h.store.create(newAttachment('b', { requestedDevice: '/dev/sdf' }));
    await h.store.create(newAttachment('a'));
    // b waits for its volume; a attaches first.
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('b')), h.op('attach', attachmentKey('a'))));
    expect((await attachmentOf(h, 'b')).status.state).toBe('pending');
    expect((await attachmentOf(h, 'a')).device).toBe('/dev/sdg');
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('b'))));
    await h.settle(30_000);
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('b'))));
    await h.settle(20_000);
    for (const [id, device] of [['a', '/dev/sdg'], ['b', '/dev/sdf']] as const) expect(await attachmentOf(h, id)).toMatchObject({ device, status: { state: 'attached', attempts: 0 } });
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });
});

describe('executor: placement by a terminated instance', () => {
  it.each(['terminated', 'shutting-down'] as const)('an instance %s places nothing: the volume ends in error at once, having created nothing', async (state) => {
    const h = harness();
    h.ebs.addInstance({ instanceId: 'i-0000000000000dead', availabilityZone: 'eu-west-1b', state });
    await h.store.create(newVolume('data-1', {}, { availabilityZone: undefined, placementInstanceId: 'i-0000000000000dead' }));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ state: 'error', code: 'IncorrectInstanceState', message: expect.stringMatching(new RegExp(`^placement instance i-0000000000000dead is ${state}; nothing was created`)) });
    expect(volume.availabilityZone).toBeUndefined();
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
  });
});

describe('executor: duplicates, late and stale messages', () => {
  it('acts once for duplicate messages in one batch', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const key = volumeKey('data-1');
    const result = await h.executor.run(h.batchOf(h.op('create-volume', key), h.op('create-volume', key), h.op('check-volume', key)));
    expect(result.failedMessageIds).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });

  it.each([
    ['first', [-1000, 3_600_000]],
    ['second', [3_600_000, -1000]],
  ] as const)('copies of one message due at different times act as soon as one is due: the copy due now comes %s', async (_, offsets) => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const now = h.clock.now();
    await h.executor.run(h.batchOf(...offsets.map((offset) => ({ ...h.op('create-volume', volumeKey('data-1')), dueAt: now + offset }))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'data-1')).status.state).toBe('creating');
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([]);
  });

  it('a late create for an available volume changes nothing', async () => {
    const h = harness();
    const before = await availableVolume(h, 'data-1');
    const calls = { ...h.ebs.calls };
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(h.ebs.calls).toEqual(calls);
    expect((await volumeOf(h, 'data-1')).status).toEqual(before.status);
  });

  it.each([
    ['behind', ['create-volume', 'check-volume']],
    ['ahead of', ['check-volume', 'create-volume']],
  ] as const)('a check of a volume at rest delivered %s a late create still brings the record in line with EC2', async (_, ops) => {
    const h = harness();
    const { ebsVolumeId } = await availableVolume(h, 'data-1');
    // Attached outside the provisioner.
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdf' });
    await h.clock.advance(30_000);
    await h.executor.run(h.batchOf(...ops.map((op) => h.op(op, volumeKey('data-1')))));
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');
  });

  it.each([
    ['behind', ['attach', 'check-attachment']],
    ['ahead of', ['check-attachment', 'attach']],
  ] as const)('a check of an attachment at rest delivered %s a late attach still notices it detached outside', async (_, ops) => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    await h.clock.advance(600_000);
    await h.executor.run(h.batchOf(...ops.map((op) => h.op(op, attachmentKey('data-1')))));
    expect((await attachmentOf(h, 'data-1')).status).toMatchObject({ state: 'pending', message: expect.stringContaining('detached outside the provisioner') });
  });

  it('an attached record whose updatedAt is no time (written into the table) still notices it detached outside', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    const attachment = await attachmentOf(h, 'data-1');
    // The validation admits any short text here (a record written without it reads as ""): unreadable, it is long ago.
    h.store.putRaw({ ...attachment, status: { ...attachment.status, updatedAt: '' } });
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    await h.clock.advance(600_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect((await attachmentOf(h, 'data-1')).status).toMatchObject({ state: 'pending', message: expect.stringContaining('detached outside the provisioner') });
  });

  it('a message for a record that no longer exists makes no EC2 call', async () => {
    const h = harness();
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('gone')), h.op('attach', attachmentKey('gone'))));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
  });

  it('a message not yet due is chained on without acting', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf({ op: 'create-volume', key: volumeKey('data-1'), dueAt: START + 3600_000 }));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    await h.clock.advance(900_000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    await h.clock.advance(2700_000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });

  it.each([
    ['behind', ['check-volume', 'create-volume']],
    ['ahead of', ['create-volume', 'check-volume']],
  ] as const)("an operation's message not yet due, delivered %s a check of the same record, is chained on as the operation's", async (_, ops) => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(...ops.map((op) => ({ ...h.op(op, volumeKey('data-1')), dueAt: START + 3600_000 }))));
    expect(h.queued().map((q) => q.op)).toEqual(['create-volume']);
  });

  it('copies of one message, none due yet, come back at both their times: the later is no copy of the sooner', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const sooner = START + 3_600_000;
    const later = START + 7_200_000;
    await h.executor.run(h.batchOf({ ...h.op('modify-volume', volumeKey('data-1')), dueAt: later }, { ...h.op('create-volume', volumeKey('data-1')), dueAt: sooner }));
    expect(h.queue.pending().map((p) => ({ op: p.message.op, dueAt: p.message.dueAt }))).toEqual([
      { op: 'modify-volume', dueAt: sooner },
      { op: 'modify-volume', dueAt: later },
    ]);
  });

  it('a late message for an operation just started waits for its first check, and a copy merged with it due later still comes back then', async () => {
    const h = harness({ ebsTimings: { create: 60_000 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status.state).toBe('creating');
    h.queue.purge();
    const later = START + 7_200_000;
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1')), { ...h.op('modify-volume', volumeKey('data-1')), dueAt: later }));
    const pending = h.queue.pending().map((p) => ({ op: p.message.op, dueAt: p.message.dueAt }));
    expect(pending).toHaveLength(2);
    expect(pending[0]!.op).toBe('check-volume');
    expect(pending[1]).toEqual({ op: 'modify-volume', dueAt: later });
    expect(h.ebs.calls.DescribeVolumes ?? 0).toBe(0);
  });

  it("the reconciler's looks, none due yet, come back as looks at both their times", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const look = (dueAt: number) => ({ ...h.op('check-volume', volumeKey('data-1')), dueAt, nudge: true as const });
    await h.executor.run(h.batchOf(look(START + 7_200_000), look(START + 3_600_000)));
    expect(h.queue.pending().map((p) => ({ op: p.message.op, dueAt: p.message.dueAt, nudge: p.message.nudge }))).toEqual([
      { op: 'check-volume', dueAt: START + 3_600_000, nudge: true },
      { op: 'check-volume', dueAt: START + 7_200_000, nudge: true },
    ]);
  });
});

describe('executor: claims', () => {
  it('one operation at a time: a record claimed elsewhere is left alone and looked at after the lease', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.claim(volumeKey('data-1'), 'other-invocation', h.clock.now(), 180_000);
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    // The other invocation crashed: after its lease the follow-up takes over.
    await h.clock.advance(180_000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'data-1')).status.state).toBe('creating');
  });

  it('two invocations on the same record: exactly one calls EC2, the other looks again when the lease ends', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const second = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, newOwnerId: () => 'second' });
    await Promise.all([
      h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1')))),
      second.run(h.batchOf(h.op('create-volume', volumeKey('data-1')))),
    ]);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    const lookAgain = h.queued().filter((q) => q.op === 'create-volume');
    expect(lookAgain).toHaveLength(1);
    expect(lookAgain[0]!.delaySeconds).toBe(DEFAULT_ENGINE_CONFIG.claimLeaseMs / 1000);
  });

  it.each([
    ['behind', ['check-volume', 'create-volume']],
    ['ahead of', ['create-volume', 'check-volume']],
  ] as const)("a record claimed elsewhere, its operation's message delivered %s a check of it, is looked at after the lease by the operation's message", async (_, ops) => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.claim(volumeKey('data-1'), 'other-invocation', h.clock.now(), 180_000);
    await h.executor.run(h.batchOf(...ops.map((op) => h.op(op, volumeKey('data-1')))));
    expect(h.queued()).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 180 }]);
  });
});

describe('executor: claims taken with the pre-call write', () => {
  it('a create claims its pending volume with the write before CreateVolume: two writes in all', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const writes = h.store.writes;
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    // The pre-call write (status creating, claim) and the result (volume id, claim released).
    expect(h.store.writes - writes).toBe(2);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status.state).toBe('creating');
    expect(volume.claim).toBeUndefined();
  });

  it('a record changed between the read and the pre-call write is looked at again a second later, then created once', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const executor = executorWritingAfterRead(h, async () => {
      const volume = await volumeOf(h, 'data-1');
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, message: 'a status note' } });
    });
    await executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    expect(h.queued()).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 1 }]);
    await h.settle(5000);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'data-1')).status.state).not.toBe('pending');
  });

  it("a create delivered behind a check of its record, which changed before the pre-call write, is looked at again by its own message", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const executor = executorWritingAfterRead(h, async () => {
      const volume = await volumeOf(h, 'data-1');
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, message: 'a status note' } });
    });
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1')), h.op('create-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    expect(h.queued()).toEqual([{ op: 'create-volume', key: 'data-1', delaySeconds: 1 }]);
  });
});

describe('executor: failures', () => {
  it('partial failure: each record keeps its own error and retry; the others succeed', async () => {
    const h = harness();
    for (const id of ['a', 'b', 'c']) await h.store.create(newVolume(id));
    h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    const result = await h.executor.run(h.batchOf(...['a', 'b', 'c'].map((id) => h.op('create-volume', volumeKey(id)))));
    expect(result.failedMessageIds).toEqual([]);
    const states = await Promise.all(['a', 'b', 'c'].map((id) => volumeOf(h, id)));
    const failed = states.filter((v) => v.status.code === 'InternalError');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.status).toMatchObject({
      state: 'creating',
      attempts: 1,
      message: 'An internal error has occurred',
      nextAttemptAt: new Date(START + 2000).toISOString(),
    });
    expect(states.filter((v) => v.ebsVolumeId)).toHaveLength(2);

    // Its retry comes at its own time and succeeds; success clears the failure fields.
    await h.settle(30_000);
    const healed = await volumeOf(h, failed[0]!.volumeId);
    expect(healed.status.state).toBe('available');
    expect(healed.status.code).toBeUndefined();
    expect(healed.status.nextAttemptAt).toBeUndefined();
    expect(healed.status.attempts).toBe(0);
  });

  it('throttling waits without using an attempt and slows the rate budget', async () => {
    const h = harness();
    for (const id of ['data-1', 'data-2']) await h.store.create(newVolume(id));
    h.ebs.failNext('CreateVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ code: 'RequestLimitExceeded', attempts: 0 });
    expect(Date.parse(volume.status.nextAttemptAt!)).toBeGreaterThan(h.clock.now());
    expect(h.metrics.outcomes('create-volume')).toContain('throttled');
    // The bucket's burst is gone: a create at the same moment, with 99 of its 100 tokens left before, is held back.
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-2'))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'data-2')).status).toMatchObject({ state: 'pending', attempts: 0 });
  });

  it('EC2 out of volume capacity is retried: an attempt used, the request kept for the next one', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const capacity = toProviderError(await realEc2Error('InsufficientVolumeCapacity', 'There is currently insufficient capacity to serve the request.'));
    h.ebs.failNext('CreateVolume', capacity);
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ state: 'creating', code: 'InsufficientVolumeCapacity', attempts: 1, nextAttemptAt: new Date(START + 2000).toISOString() });
    expect(volume.createRequest).toMatchObject({ availabilityZone: AZ });
    expect(h.metrics.counter('OperationsFailed') ?? 0).toBe(0);

    await h.settle(30_000);
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'available', attempts: 0 });
    expect(h.createRequests.map((r) => r.clientToken)).toEqual([volume.createRequest!.clientToken, volume.createRequest!.clientToken]);
  });

  it('ends in a terminal error after the attempt budget, with the reason', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'boom'), 2);
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.settle(60_000);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ state: 'error', code: 'InternalError', attempts: 2 });
    expect(volume.status.message).toMatch(/gave up after 2 failed attempts/);
    expect(h.ebs.calls.CreateVolume).toBe(2);
  });

  it('ends in a terminal error after the maximum age', async () => {
    const h = harness({ config: { maxOperationAgeMs: 60_000, maxAttempts: 100 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'boom'));
    const volume = await volumeOf(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, state: 'creating', attempts: 3, operationStartedAt: new Date(START).toISOString() }, ebsVolumeId: null });
    await h.clock.advance(61_000);
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'error', message: expect.stringMatching(/gave up after 1 minutes/) });
  });

  it('a terminal EC2 error goes straight to error', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'bad iops'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', message: 'bad iops', attempts: 1 });
    expect(h.metrics.counter('OperationsFailed')).toBe(1);
  });

  it('OperationsFailed counts the error statuses written: none for a record deleted during the failed call, one for a failure whose first status write was lost and retried', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const provider: VolumeProvider = Object.create(h.ebs);
    provider.createVolume = async (request) => {
      await h.store.remove(volumeKey('data-1'));
      return h.ebs.createVolume(request);
    };
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'bad iops'));
    expect((await executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))))).failedMessageIds).toEqual([]);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.metrics.counter('OperationsFailed')).toBe(0);

    await h.store.create(newVolume('data-2'));
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'bad iops'), 2);
    let calls = 0;
    const failing: VolumeProvider = Object.create(h.ebs);
    failing.createVolume = async (request) => {
      try {
        return await h.ebs.createVolume(request);
      } finally {
        // The status write after the first call fails: the message comes back and the call is made again.
        if (++calls === 1) h.store.failNext('update', new Error('DynamoDB unavailable'));
      }
    };
    const retrying = new Executor({ store: h.store, queue: h.queue, provider: failing, clock: h.clock, metrics: h.metrics, log: silentLog });
    const batch = h.batchOf(h.op('create-volume', volumeKey('data-2')));
    expect((await retrying.run(batch)).failedMessageIds).toEqual([batch[0]!.messageId]);
    expect(h.metrics.counter('OperationsFailed')).toBe(0);
    // The claim the lost write would have let go ends with its lease.
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.claimLeaseMs + 1000);
    expect((await retrying.run(h.batchOf(h.op('create-volume', volumeKey('data-2'))))).failedMessageIds).toEqual([]);
    expect((await volumeOf(h, 'data-2')).status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });
    expect(h.metrics.counter('OperationsFailed')).toBe(1);
  });

  it('an EC2 error message of any length goes into the status shortened to the message bound', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', `bad request: ${'x'.repeat(500_000)}`));
    expect((await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))))).failedMessageIds).toEqual([]);
    const { status } = await volumeOf(h, 'data-1');
    expect(status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', message: expect.stringMatching(/^bad request: x+…$/) });
    expect(status.message).toHaveLength(MAX_STATUS_MESSAGE_CHARS);
  });

  it('reports only our own infrastructure failures for redelivery', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    h.store.failNext('getMany', new Error('DynamoDB unavailable'));
    const batch = h.batchOf(h.op('create-volume', volumeKey('data-1')), h.op('create-volume', volumeKey('data-2')));
    expect((await h.executor.run(batch)).failedMessageIds).toEqual(batch.map((b) => b.messageId));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);

    h.queue.failNextSend(new Error('SQS unavailable'));
    const again = h.batchOf(h.op('create-volume', volumeKey('data-1')));
    expect((await h.executor.run(again)).failedMessageIds).toEqual([again[0]!.messageId]);
  });
});

/**
 * Delivers what falls due one second at a time for `seconds`, with looks at `key` every second
 * beside (`looks`: checks and nudges, as the watcher and the reconciler send them), while the
 * failing EC2 calls are counted elsewhere: the next attempt each failure named, in order.
 */
async function retriedUnderLooks(h: ReturnType<typeof harness>, key: RecordKey, looks: OperationMessage[], seconds = 300): Promise<number[]> {
  const due: number[] = [];
  for (let second = 0; second < seconds; second++) {
    await h.queue.send(looks.map((message) => ({ message, delaySeconds: 0 })));
    await h.drain();
    const next = (await h.store.get(key))?.status.nextAttemptAt;
    if (next !== undefined && Date.parse(next) !== due.at(-1)) due.push(Date.parse(next));
    await h.clock.advance(1000);
  }
  return due;
}

const internalError = () => new ProviderError('transient', 'InternalError', 'An internal error has occurred');

/**
 * Makes every `call` to EC2 fail, sends `op` for `key`, then looks at the record every second
 * (`retriedUnderLooks`): the record ends in error at the attempt budget, with no call made but the
 * one at the end of each backoff.
 */
async function expectRetriedWhenEachBackoffEnds(h: ReturnType<typeof harness>, key: RecordKey, op: OperationKind, call: 'createVolume' | 'attachVolume' | 'deleteVolume', looks: OperationMessage[]) {
  const calls: number[] = [];
  h.ebs[call] = async () => {
    calls.push(h.clock.now());
    throw internalError();
  };
  await h.executor.run(h.batchOf(h.op(op, key)));
  const due = await retriedUnderLooks(h, key, looks);
  expect((await h.store.get(key))?.status).toMatchObject({ state: 'error', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts });
  expect(calls).toHaveLength(DEFAULT_ENGINE_CONFIG.maxAttempts);
  expect(calls.slice(1)).toEqual(due.slice(0, calls.length - 1));
}

describe('executor: a failed operation looked at during its backoff', () => {
  it('a CreateVolume EC2 keeps failing is tried again when each backoff ends, not at each look', async () => {
    const h = harness();
    const key = volumeKey('data-1');
    await h.store.create(newVolume('data-1'));
    await expectRetriedWhenEachBackoffEnds(h, key, 'create-volume', 'createVolume', [h.op('check-volume', key), { ...h.op('create-volume', key), nudge: true }]);
  });

  it('an AttachVolume EC2 keeps failing is tried again when each backoff ends, not at each look', async () => {
    const h = harness();
    const key = attachmentKey('data-1');
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1'));
    await expectRetriedWhenEachBackoffEnds(h, key, 'attach', 'attachVolume', [h.op('check-attachment', key), { ...h.op('attach', key), nudge: true }, h.op('check-volume', volumeKey('data-1'))]);
  });

  it('a DeleteVolume EC2 keeps failing is tried again when each backoff ends, not at each look', async () => {
    const h = harness();
    const key = volumeKey('data-1');
    await availableVolume(h, 'data-1');
    await h.store.update<VolumeRecord>(key, { life: 'dying' });
    await expectRetriedWhenEachBackoffEnds(h, key, 'delete-volume', 'deleteVolume', [h.op('check-volume', key), { ...h.op('delete-volume', key), nudge: true }]);
  });

  it('a look at a volume left with nothing to do (the change that failed put back) still brings it in line with EC2 at once', async () => {
    const h = harness();
    const key = volumeKey('data-1');
    await availableVolume(h, 'data-1');
    const nextAttemptAt = new Date(h.clock.now() + 60_000).toISOString();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.update<VolumeRecord>(key, { status: { state: 'available', code: 'InternalError', message: 'An internal error has occurred', attempts: 2, updatedAt: at, operationStartedAt: at, nextAttemptAt } });
    const describes = h.ebs.calls.DescribeVolumes;
    await h.executor.run(h.batchOf(h.op('check-volume', key)));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect((await volumeOf(h, 'data-1')).status).toEqual({ state: 'available', attempts: 0, updatedAt: at });
  });

  it("a client's change during an attach's backoff tries it again at once, and only that: the failed attempt's own retry makes no call before the next backoff ends", async () => {
    const h = harness();
    const key = attachmentKey('data-1');
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1'));
    /** When the record says the next attempt is due, and when its client changed it (an attempt due at once). */
    let due = 0;
    let changedAt = Number.NaN;
    const early: number[] = [];
    h.ebs.attachVolume = async () => {
      if (h.clock.now() < due && h.clock.now() !== changedAt) early.push(h.clock.now());
      throw new ProviderError('incorrect-state', 'IncorrectState', 'The instance is not ready');
    };
    await h.executor.run(h.batchOf(h.op('attach', key)));
    due = Date.parse((await h.store.get(key))!.status.nextAttemptAt!);
    await h.clock.advance(1000);
    h.changes.splice(0);
    await h.store.update<AttachmentRecord>(key, { requestedDevice: '/dev/sdh' });
    changedAt = h.clock.now();
    for (let second = 0; second < 300; second++) {
      await h.watch();
      await h.drain();
      const next = (await h.store.get(key))?.status.nextAttemptAt;
      if (next !== undefined) due = Date.parse(next);
      await h.clock.advance(1000);
    }
    expect(early).toEqual([]);
    expect((await h.store.get(key))?.status).toMatchObject({ state: 'error', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts });
  });

  it("a failed attempt's retry deferred for a rate token stays its retry: once a client's change has made another attempt, it makes none before that attempt's backoff ends", async () => {
    const h = harness({ config: { rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } } } });
    const key = volumeKey('data-1');
    await h.store.create(newVolume('data-1'));
    await h.store.create(newVolume('a'));
    h.ebs.failNext('CreateVolume', internalError());
    await h.executor.run(h.batchOf(h.op('create-volume', key)));
    const first = (await volumeOf(h, 'data-1')).status.nextAttemptAt!;
    h.queue.purge();
    await h.clock.advance(Date.parse(first) - h.clock.now());
    // Its retry comes behind another volume's create, which takes the one token there is.
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), { ...h.op('create-volume', key), retryOf: first }));
    expect(h.ebs.calls.CreateVolume).toBe(2);
    const ofData1 = () => h.queue.pending().filter((pending) => pending.message.key.volumeId === 'data-1');
    expect(ofData1().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'create-volume', retryOf: first })]);
    // A client's change, come before it: an attempt at once, which fails as well.
    await h.clock.advance(1000);
    h.ebs.failNext('CreateVolume', internalError());
    await h.executor.run(h.batchOf(h.op('create-volume', key)));
    expect(h.ebs.calls.CreateVolume).toBe(3);
    const due = Date.parse((await volumeOf(h, 'data-1')).status.nextAttemptAt!);
    while (h.clock.now() < due - 1000) {
      await h.drain();
      expect(h.ebs.calls.CreateVolume).toBe(3);
      await h.clock.advance(1000);
    }
    await h.settle(10_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 } });
    expect(h.ebs.calls.CreateVolume).toBe(4);
  });

  it('a look deferred for a rate token comes back a look', async () => {
    const h = harness({ config: { rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } } } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newVolume('a'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), { ...h.op('create-volume', volumeKey('data-1')), nudge: true }));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queue.pending().filter((pending) => pending.message.key.volumeId === 'data-1').map((pending) => pending.message)).toEqual([
      expect.objectContaining({ op: 'create-volume', nudge: true }),
    ]);
  });

  it("an earlier attempt's retry holding a rate token makes no attempt before the later attempt's backoff ends: it comes back then, with its token", async () => {
    const h = harness();
    const key = volumeKey('data-1');
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', internalError(), 2);
    await h.executor.run(h.batchOf(h.op('create-volume', key)));
    const earlier = (await volumeOf(h, 'data-1')).status.nextAttemptAt!;
    h.queue.purge();
    // A client's change brings an attempt at once, which fails as well.
    await h.executor.run(h.batchOf(h.op('create-volume', key)));
    expect(h.ebs.calls.CreateVolume).toBe(2);
    const { nextAttemptAt } = (await volumeOf(h, 'data-1')).status;
    expect(nextAttemptAt).not.toBe(earlier);
    h.queue.purge();
    // The earlier attempt's retry, deferred before for a token it holds.
    const tokenAt = h.clock.now();
    await h.executor.run(h.batchOf({ ...h.op('create-volume', key), retryOf: earlier, tokenAt }));
    expect(h.ebs.calls.CreateVolume).toBe(2);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'create-volume', retryOf: nextAttemptAt, tokenAt })]);
    await h.settle(10_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 } });
    expect(h.ebs.calls.CreateVolume).toBe(3);
  });

  it("an earlier attempt's retry delivered again, its invocation having failed, comes back as the retry of the attempt now due", async () => {
    const h = harness();
    const key = volumeKey('data-1');
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', internalError());
    await h.executor.run(h.batchOf(h.op('create-volume', key)));
    h.queue.purge();
    const { nextAttemptAt } = (await volumeOf(h, 'data-1')).status;
    const earlier = new Date(h.clock.now() - 60_000).toISOString();
    await h.executor.run([{ messageId: 'm-again', message: { ...h.op('create-volume', key), retryOf: earlier }, receiveCount: 2 }]);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([expect.objectContaining({ op: 'create-volume', retryOf: nextAttemptAt })]);
    await h.settle(10_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 } });
    expect(h.ebs.calls.CreateVolume).toBe(2);
  });

  it('a look delivered again, its invocation having failed, comes back when the backoff ends', async () => {
    const h = harness();
    const key = volumeKey('data-1');
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', internalError());
    await h.executor.run(h.batchOf(h.op('create-volume', key)));
    h.queue.purge();
    const due = Date.parse((await volumeOf(h, 'data-1')).status.nextAttemptAt!);
    await h.executor.run([{ messageId: 'm-again', message: h.op('check-volume', key), receiveCount: 2 }]);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queued()).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: (due - h.clock.now()) / 1000 }]);
    await h.settle(10_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 } });
    expect(h.ebs.calls.CreateVolume).toBe(2);
  });
});

describe('executor: work EC2 accepts and then fails, every time', () => {
  /** Runs the watcher and the executor over `minutes` of fake time. */
  async function run(h: ReturnType<typeof harness>, minutes: number) {
    for (let minute = 0; minute < minutes; minute++) {
      await h.watch();
      await h.settle(60_000, 5_000);
    }
  }

  it('a modification EC2 fails every time counts each failure and ends in error after the attempt budget, instead of being sent again forever', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    const modify = h.ebs.modifyVolume.bind(h.ebs);
    h.ebs.modifyVolume = async (request) => {
      await modify(request);
      h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
    };
    await growTo(h, 'data-1', 20);
    await run(h, 3 * 60);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ state: 'error', code: 'ModificationFailed', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts });
    expect(h.ebs.calls.ModifyVolume).toBe(DEFAULT_ENGINE_CONFIG.maxAttempts);
    await run(h, 60);
    expect(h.ebs.calls.ModifyVolume).toBe(DEFAULT_ENGINE_CONFIG.maxAttempts);
  });

  it('a modification EC2 fails every time, with a throttled ModifyVolume between each, still ends at the budget: the failures are counted per spec on the record', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    const modify = h.ebs.modifyVolume.bind(h.ebs);
    let accepted = 0;
    let throttleNext = false;
    h.ebs.modifyVolume = async (request) => {
      if (throttleNext) {
        throttleNext = false;
        throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
      }
      await modify(request);
      accepted++;
      h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
      throttleNext = true;
    };
    await growTo(h, 'data-1', 20);
    await run(h, 3 * 60);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ state: 'error', code: 'ModificationFailed' });
    expect(volume.failedModifications).toEqual({ target: { sizeGiB: 20, volumeType: 'gp3' }, count: DEFAULT_ENGINE_CONFIG.maxAttempts });
    expect(accepted).toBe(DEFAULT_ENGINE_CONFIG.maxAttempts);
  });

  it('failed modifications count per target: a change of tags between them keeps counting, another size counts afresh, and a modification that completes clears the count', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    const modify = h.ebs.modifyVolume.bind(h.ebs);
    let failThirty = 1;
    // EC2 fails every modification to 20 GiB, and the first to 30 GiB.
    h.ebs.modifyVolume = async (request) => {
      await modify(request);
      if (request.sizeGiB === 20 || (request.sizeGiB === 30 && failThirty-- > 0)) h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
    };
    const countOf = async () => (await volumeOf(h, 'data-1')).failedModifications;
    await growTo(h, 'data-1', 20);
    for (let i = 0; i < 60 && ((await countOf())?.count ?? 0) < 2; i++) await run(h, 1);
    const before = (await countOf())!;
    expect(before.target).toEqual({ sizeGiB: 20, volumeType: 'gp3' });
    expect(before.count).toBeGreaterThanOrEqual(2);
    // A change of tags (a new generation) asks for the same size: the count goes on.
    const volume = await volumeOf(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags: { team: 'a' } }, generation: volume.generation + 1 });
    for (let i = 0; i < 60 && ((await countOf())?.count ?? 0) <= before.count; i++) await run(h, 1);
    expect((await countOf())!.count).toBeGreaterThan(before.count);
    // Another size instead: its first failure is its first.
    await growTo(h, 'data-1', 30);
    for (let i = 0; i < 60 && (await countOf())?.target.sizeGiB !== 30; i++) await run(h, 1);
    expect(await countOf()).toEqual({ target: { sizeGiB: 30, volumeType: 'gp3' }, count: 1 });
    await run(h, 30);
    const done = await volumeOf(h, 'data-1');
    expect(done).toMatchObject({ observed: { sizeGiB: 30 }, status: { state: 'available', attempts: 0 } });
    expect(done.failedModifications).toBeUndefined();
  });

  it('failed modifications stop counting once EC2 holds the spec another way (grown in the console)', async () => {
    const h = harness();
    const created = await availableVolume(h, 'data-1');
    const modify = h.ebs.modifyVolume.bind(h.ebs);
    let failing = true;
    h.ebs.modifyVolume = async (request) => {
      await modify(request);
      if (failing) h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
    };
    await growTo(h, 'data-1', 20);
    for (let i = 0; i < 60 && ((await volumeOf(h, 'data-1')).failedModifications?.count ?? 0) < 3; i++) await run(h, 1);
    // Grown to 20 GiB outside the system, and done before the system looks again: a look finds the spec held.
    failing = false;
    await modify({ ebsVolumeId: created.ebsVolumeId!, sizeGiB: 20 });
    await h.clock.advance(3 * 3_600_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const held = await volumeOf(h, 'data-1');
    expect(held).toMatchObject({ observed: { sizeGiB: 20 }, status: { state: 'available' } });
    expect(held.failedModifications).toBeUndefined();
  });

  it('an attach EC2 accepts but never makes counts each time it is not seen, and ends in error after the attempt budget', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    let calls = 0;
    h.ebs.attachVolume = async () => void calls++;
    await h.store.create(newAttachment('data-1'));
    await run(h, 3 * 60);
    expect((await attachmentOf(h, 'data-1')).status).toMatchObject({ state: 'error', code: 'AttachmentNotFound', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts });
    expect(calls).toBe(DEFAULT_ENGINE_CONFIG.maxAttempts);
    await run(h, 60);
    expect(calls).toBe(DEFAULT_ENGINE_CONFIG.maxAttempts);
  });

  it("another operation after failed ones has its own attempts: a grow after failed tag changes, a delete after failed modifications", async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    const volume = await availableVolume(h, 'data-1');
    const at = new Date(h.clock.now()).toISOString();
    const failedSeven = (code: string) => ({ state: 'available' as const, attempts: 7, code, message: 'failed', updatedAt: at, operationStartedAt: at });
    // Seven failed tag changes, then a grow that EC2 accepts and fails once: one failure of the grow, not the eighth.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, sizeGiB: 20 }, generation: volume.generation + 1, status: failedSeven('TagLimitExceeded') });
    const modify = h.ebs.modifyVolume.bind(h.ebs);
    h.ebs.modifyVolume = async (request) => {
      await modify(request);
      h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
    };
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'modifying', attempts: 0 });
    await h.clock.advance(20_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'available', code: 'ModificationFailed', attempts: 1 });
    // Seven failed modifications, then the volume is deleted: the delete starts with none.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying', status: failedSeven('ModificationFailed') });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'deleting', attempts: 0 });
  });

  it('a volume EC2 removes while creating it (an encryption key it cannot use) ends in error at once: no CreateVolume again', async () => {
    const h = harness();
    const create = h.ebs.createVolume.bind(h.ebs);
    h.ebs.createVolume = async (request) => {
      const volume = await create(request);
      h.ebs.deleteBehindBack(volume.ebsVolumeId);
      return volume;
    };
    await h.store.create(newVolume('data-1', {}, { encrypted: true, kmsKeyId: 'alias/volumes' }));
    await h.store.create(newVolume('data-2', {}, { encrypted: true }));
    await h.store.create(newVolume('data-3'));
    await run(h, 3 * 60);
    const ended = await Promise.all(['data-1', 'data-2', 'data-3'].map((id) => volumeOf(h, id)));
    for (const volume of ended) expect(volume.status).toMatchObject({ state: 'error', attempts: 1, code: 'InvalidVolume.NotFound' });
    expect(h.ebs.calls.CreateVolume).toBe(3);
    // The message names the likely cause, the key, since CreateVolume's answer said nothing of it.
    expect(ended[0]!.status.message).toMatch(/^EC2 removed volume vol-\w+ while creating it; EBS does this when it cannot use its KMS key alias\/volumes: .*kmsKeyArn.*; a retry creates a new volume$/);
    expect(ended[1]!.status.message).toMatch(/cannot use its KMS key \(the account's default for EBS, or the snapshot's\)/);
    expect(ended[2]!.status.message).toMatch(/cannot use the KMS key of a volume encrypted by default/);
  });
});

describe('executor: deleted while in flight', () => {
  it('no EC2 call if the record is deleted after the bulk read but before the call', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const executor = executorWritingAfterRead(h, () => h.store.remove(volumeKey('data-1')));
    const result = await executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(result.failedMessageIds).toEqual([]);
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it('a record removed and written again under its key after the read (its version starts again) is not taken for the one read: nothing is created from the old spec', async () => {
    const h = harness();
    let swapped = false;
    const store: RecordStore = Object.create(h.store);
    store.update = async (key, changes, condition) => {
      if (!swapped && key.kind === 'volume' && (changes as Partial<VolumeRecord>).createRequest) {
        swapped = true;
        // Just before the claiming write: the client removes the record and writes it again, asking for an encrypted 50 GiB volume.
        await h.store.remove(key);
        await h.store.create(newVolume('data-1', { createdAt: new Date(START + 5).toISOString() }, { sizeGiB: 50, encrypted: true }));
      }
      return h.store.update(key, changes, condition);
    };
    const executor = new Executor({ store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, random: () => 0.5, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1 } });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    for (let second = 0; second < 20; second++) {
      await h.watch();
      const received = h.queue.receive(100);
      const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
      for (const r of received) if (!failedMessageIds.includes(r.messageId)) h.queue.delete(r.receiptHandle);
      await h.clock.advance(1000);
    }
    expect(swapped).toBe(true);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status.state).toBe('available');
    expect(volume.createRequest?.spec).toMatchObject({ sizeGiB: 50, encrypted: true });
    expect(h.ebs.volumes().map((v) => ({ sizeGiB: v.sizeGiB, encrypted: v.encrypted }))).toEqual([{ sizeGiB: 50, encrypted: true }]);
  });

  it('a status write never recreates a record deleted during the EC2 call', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    const provider: VolumeProvider = Object.create(h.ebs);
    provider.createVolume = async (request) => {
      const volume = await h.ebs.createVolume(request);
      await h.store.remove(volumeKey('data-1'));
      return volume;
    };
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
    const result = await executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(result.failedMessageIds).toEqual([]);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });
});

describe('executor: attach', () => {
  it('waits for its volume without any EC2 call', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
    const attachment = await attachmentOf(h, 'data-1');
    expect(attachment.status).toMatchObject({ state: 'pending', message: expect.stringMatching(/waiting for volume data-1/) });
  });

  it('attaches, checks, and marks the volume in use', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attaching');
    await h.settle(20_000);
    const attachment = await attachmentOf(h, 'data-1');
    expect(attachment.status.state).toBe('attached');
    expect(attachment.device).toBe('/dev/sdf');
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');
  });

  it('waits for an instance that is not running yet, and fails fast on another AZ', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: 'i-00000000000000001', availabilityZone: AZ, state: 'pending' });
    h.ebs.addInstance({ instanceId: 'i-00000000000000002', availabilityZone: 'eu-west-1b' });
    await availableVolume(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { sizeGiB: 10, volumeType: 'io2', iops: 1000, availabilityZone: AZ, multiAttach: true } });
    await h.store.create(newAttachment('data-1', { instanceId: 'i-00000000000000001' }));
    await h.store.create(newAttachment('data-1', { instanceId: 'i-00000000000000002' }));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', 'i-00000000000000001')), h.op('attach', attachmentKey('data-1', 'i-00000000000000002'))));
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
    expect(h.ebs.calls.DescribeInstances).toBe(1);
    expect((await attachmentOf(h, 'data-1', 'i-00000000000000001')).status).toMatchObject({ state: 'pending', code: 'IncorrectInstanceState', attempts: 1 });
    expect((await attachmentOf(h, 'data-1', 'i-00000000000000002')).status).toMatchObject({ state: 'error', code: 'InvalidVolume.ZoneMismatch' });
  });

  it('an instance shutting down will never run again: the attach ends in error after one attempt, without waiting', async () => {
    const h = harness();
    h.ebs.addInstance({ instanceId: 'i-00000000000000003', availabilityZone: AZ, state: 'shutting-down' });
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1', { instanceId: 'i-00000000000000003' }));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', 'i-00000000000000003'))));
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);
    const { status } = await attachmentOf(h, 'data-1', 'i-00000000000000003');
    expect(status).toMatchObject({ state: 'error', code: 'IncorrectInstanceState', attempts: 1, message: expect.stringMatching(/shutting-down/) });
    expect(status.nextAttemptAt).toBeUndefined();
    expect(h.queued().filter((q) => q.op === 'attach')).toEqual([]);
  });

  it('an operation that ends in error is logged with its record, so the OperationsFailed alarm finds an attachment no volume list shows', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    h.ebs.addInstance({ instanceId: 'i-00000000000000003', availabilityZone: AZ, state: 'shutting-down' });
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1', { instanceId: 'i-00000000000000003' }));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', 'i-00000000000000003'))));
    const { status } = await attachmentOf(h, 'data-1', 'i-00000000000000003');
    expect(status.state).toBe('error');
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    expect(h.metrics.counter('OperationsFailed')).toBe(1);
    expect(log.entries.filter((entry) => entry.message === 'operation failed')).toEqual([
      { level: 'warn', message: 'operation failed', attributes: { key: 'attachment/data-1/i-00000000000000003', op: 'attach', code: 'IncorrectInstanceState', error: status.message } },
    ]);
  });

  it('20 attaches to one instance in one batch get 20 distinct device names', async () => {
    const h = harness({ config: { rateBudgets: { CreateVolume: { burst: 100, ratePerSecond: 10 }, AttachVolume: { burst: 100, ratePerSecond: 10 }, DeleteVolume: { burst: 20, ratePerSecond: 1 }, CreateTags: { burst: 20, ratePerSecond: 2 } } } });
    h.ebs.addInstance({ instanceId: 'i-0000000000000000b', availabilityZone: AZ, maxAttachments: 40 });
    const ids = Array.from({ length: 20 }, (_, i) => `v${i}`);
    for (const id of ids) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));
    await h.settle(30_000);
    for (const id of ids) await h.store.create(newAttachment(id, { instanceId: 'i-0000000000000000b' }));
    const before = h.ebs.calls.DescribeInstances ?? 0;
    await h.executor.run(h.batchOf(...ids.map((id) => h.op('attach', attachmentKey(id, 'i-0000000000000000b')))));
    expect(h.ebs.calls.DescribeInstances).toBe(before + 1);
    expect(h.ebs.calls.AttachVolume).toBe(20);
    const devices = await Promise.all(ids.map(async (id) => (await attachmentOf(h, id, 'i-0000000000000000b')).device));
    expect(new Set(devices).size).toBe(20);
  });

  it('past the instance free names, a per-item error', async () => {
    const h = harness({ config: { deviceNames: ['/dev/sdf', '/dev/sdg'] } });
    const ids = ['v0', 'v1', 'v2'];
    for (const id of ids) await availableVolume(h, id);
    for (const id of ids) await h.store.create(newAttachment(id));
    await h.executor.run(h.batchOf(...ids.map((id) => h.op('attach', attachmentKey(id)))));
    const records = await Promise.all(ids.map((id) => attachmentOf(h, id)));
    expect(records.filter((r) => r.status.state === 'attaching')).toHaveLength(2);
    expect(records.filter((r) => r.status.code === 'NoFreeDeviceName')).toHaveLength(1);
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('already attached to the same instance counts as success', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    await h.ebs.attachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
    await h.settle(10_000);
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    await h.settle(20_000);
    const attachment = await attachmentOf(h, 'data-1');
    expect(attachment.status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(attachment.device).toBe('/dev/sdz');
  });
});

describe('executor: an attachment waiting for its volume', () => {
  it('whose wait is written while its volume becomes free (the watcher left it to its retry) goes on at once: no lost wake-up', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    await h.settle(10_000);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attached');
    // A second instance's attachment was refused (the volume is in use) and waits for its retry.
    const failedAt = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newAttachment('data-1', {
        instanceId: OTHER_INSTANCE,
        status: { state: 'pending', attempts: 1, code: 'VolumeInUse', message: 'in use', updatedAt: failedAt, operationStartedAt: failedAt, nextAttemptAt: new Date(h.clock.now() + 30_000).toISOString() },
      }),
    );
    h.changes.splice(0);
    // The first attachment is deleted: its detach starts.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.drain();
    await h.clock.advance(30_000);
    // The retry reads the volume in use; before it writes its wait, another invocation finishes the
    // detach and the watcher sees the volume become available (the waiting one has a retry due).
    let freed = false;
    const executor = executorWritingAfterRead(h, async () => {
      if (freed) return;
      freed = true;
      const due = h.queue.receive(100);
      const detach = due.filter((d) => d.message.key.kind === 'attachment' && d.message.key.instanceId === INSTANCE);
      expect(detach).toHaveLength(1);
      await h.environment().run(detach.map((d) => ({ messageId: d.messageId, message: d.message })));
      for (const d of detach) h.queue.delete(d.receiptHandle);
      await h.watch();
      expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    });
    await executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', OTHER_INSTANCE))));
    expect(freed).toBe(true);
    for (let i = 0; i < 20; i++) {
      await h.watch();
      await h.settle(1000);
    }
    expect((await attachmentOf(h, 'data-1', OTHER_INSTANCE)).status.state).toBe('attached');
    expect(h.ebs.volume((await volumeOf(h, 'data-1')).ebsVolumeId!)?.attachments.map((a) => a.instanceId)).toEqual([OTHER_INSTANCE]);
  });
  it('whose wait is written while its volume record is removed and written again, available, at the version read, goes on at once', async () => {
    const h = harness();
    const fresh = await availableVolume(h, 'data-1');
    // As read: the record the client removed, still waiting for its volume to be created; the one written again has reached the same version.
    h.store.putRaw({ ...newVolume('data-1', { createdAt: new Date(START - 3_600_000).toISOString() }), version: fresh.version });
    const failedAt = new Date(h.clock.now()).toISOString();
    const status = { state: 'pending' as const, attempts: 1, code: 'IncorrectState', message: 'The instance is not ready', updatedAt: failedAt, operationStartedAt: failedAt, nextAttemptAt: failedAt };
    await h.store.create(newAttachment('data-1', { status }));
    h.changes.splice(0);
    // The watcher sees the volume record written again, available, while the attachment's retry is due: it leaves the attachment to it.
    let replaced = false;
    const executor = executorWritingAfterRead(h, async () => {
      if (replaced) return;
      replaced = true;
      h.store.putRaw(fresh);
      await h.watch();
    });
    await executor.run(h.batchOf({ ...h.op('attach', attachmentKey('data-1')), retryOf: failedAt }));
    expect(replaced).toBe(true);
    for (let i = 0; i < 20; i++) {
      await h.watch();
      await h.settle(1000);
    }
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attached');
  });

  it('a retry of an attach EC2 refused that finds the volume in use elsewhere waits with no code or next attempt of the refusal, its failed attempt still counted', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const failedAt = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newAttachment('data-1', {
        instanceId: OTHER_INSTANCE,
        status: { state: 'pending', attempts: 1, code: 'VolumeInUse', message: 'in use', updatedAt: failedAt, operationStartedAt: failedAt, nextAttemptAt: new Date(h.clock.now() + 30_000).toISOString() },
      }),
    );
    await h.clock.advance(30_000);
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', OTHER_INSTANCE))));
    const waiting = await attachmentOf(h, 'data-1', OTHER_INSTANCE);
    expect(waiting.status).toEqual({ state: 'pending', attempts: 1, message: 'waiting for volume data-1 to be detached from its other instance', updatedAt: new Date(h.clock.now()).toISOString() });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });
});

describe('executor: a look at an attach given up on', () => {
  /** Volume data-1 available, and an attachment that ended in error `agoMs` ago while keeping `/dev/sdf` (its last AttachVolume went unanswered). */
  async function givenUp(h: ReturnType<typeof harness>, agoMs: number) {
    const volume = await availableVolume(h, 'data-1');
    const updatedAt = new Date(h.clock.now() - agoMs).toISOString();
    await h.store.create(
      newAttachment('data-1', { device: '/dev/sdf', volumeCreatedAt: volume.createdAt, status: { state: 'error', code: 'RequestTimeout', message: 'Request timed out (gave up after 8 failed attempts)', attempts: 8, updatedAt } }),
    );
    return { ebsVolumeId: volume.ebsVolumeId!, failed: await attachmentOf(h, 'data-1') };
  }

  it('finds EC2 attached after all: the attachment is attached and its volume in use; the same look delivered again writes nothing', async () => {
    const h = harness();
    const { ebsVolumeId } = await givenUp(h, 5 * 60_000);
    await h.ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await h.clock.advance(10_000);
    const look = h.op('check-attachment', attachmentKey('data-1'));
    await h.executor.run(h.batchOf(look, look));
    const attached = await attachmentOf(h, 'data-1');
    expect(attached.status).toEqual({ state: 'attached', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString(), message: 'EC2 made the attach after it was given up on' });
    expect(attached.device).toBe('/dev/sdf');
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');

    await h.clock.advance(1000);
    await h.executor.run(h.batchOf(look));
    expect((await attachmentOf(h, 'data-1')).version).toBe(attached.version);
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('delivered behind a late attach message, still finds EC2 attached after all', async () => {
    const h = harness();
    const { ebsVolumeId } = await givenUp(h, 5 * 60_000);
    await h.ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1')), h.op('check-attachment', attachmentKey('data-1'))));
    expect((await attachmentOf(h, 'data-1')).status).toMatchObject({ state: 'attached', message: 'EC2 made the attach after it was given up on' });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('finds nothing attached: within the describe grace it writes nothing; after it the device goes and the error stays as it was', async () => {
    const h = harness();
    const { failed } = await givenUp(h, 0);
    const look = h.op('check-attachment', attachmentKey('data-1'));
    await h.executor.run(h.batchOf(look));
    expect(await attachmentOf(h, 'data-1')).toEqual(failed);

    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs);
    await h.executor.run(h.batchOf(look));
    const looked = await attachmentOf(h, 'data-1');
    expect(looked.device).toBeUndefined();
    expect(looked.status).toEqual(failed.status);
    expect(h.queued()).toEqual([]);
  });

  it('writes and schedules nothing while EC2 is still attaching, or when DescribeVolumes fails', async () => {
    const h = harness({ ebsTimings: { attach: 3_600_000 } });
    const { ebsVolumeId, failed } = await givenUp(h, 5 * 60_000);
    await h.ebs.attachVolume({ ebsVolumeId, instanceId: INSTANCE, device: '/dev/sdf' });
    const look = h.op('check-attachment', attachmentKey('data-1'));
    await h.executor.run(h.batchOf(look));
    expect(await attachmentOf(h, 'data-1')).toEqual(failed);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { device: '/dev/sdg' });
    const kept = await attachmentOf(h, 'data-1');
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.executor.run(h.batchOf(look));
    expect(await attachmentOf(h, 'data-1')).toEqual(kept);
    expect(h.queued()).toEqual([]);
  });

  it('is not made for an attachment in error that kept no device: nothing may be attached', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    const at = new Date(h.clock.now() - 5 * 60_000).toISOString();
    await h.store.create(newAttachment('data-1', { status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', message: 'zones differ', attempts: 1, updatedAt: at } }));
    const describes = h.ebs.calls.DescribeVolumes ?? 0;
    const before = await attachmentOf(h, 'data-1');
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(await attachmentOf(h, 'data-1')).toEqual(before);
    expect(h.ebs.calls.DescribeVolumes ?? 0).toBe(describes);
  });
});

describe('executor: detach and delete', () => {
  it('a volume that ended in error with its attempts spent, then deleted, has the delete\'s own attempts: a failed look after DeleteVolume retries', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    const at = new Date(h.clock.now()).toISOString();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      status: { state: 'error', code: 'ModificationFailed', message: 'gave up', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts, updatedAt: at, operationStartedAt: at },
      life: 'dying',
    });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'deleting', attempts: 0 } });
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.settle(60_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(volume.ebsVolumeId!)?.state ?? 'gone').toBe('gone');
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });

  it('a volume whose operation failed, then deleted by its client, gives its delete the whole attempt budget: a DeleteVolume EC2 fails once is tried again after its own backoff', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    const at = new Date(h.clock.now()).toISOString();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      status: { state: 'error', code: 'ModificationFailed', message: 'gave up', attempts: DEFAULT_ENGINE_CONFIG.maxAttempts, updatedAt: at, operationStartedAt: at },
    });
    await h.watch();
    h.ebs.failNext('DeleteVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.drain();
    const failed = (await volumeOf(h, 'data-1')).status;
    expect(failed).toMatchObject({ state: 'error', code: 'InternalError', attempts: 1, message: 'An internal error has occurred' });
    expect(Date.parse(failed.nextAttemptAt!) - h.clock.now()).toBeLessThanOrEqual(2000);
    await h.settle(60_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(volume.ebsVolumeId!)?.state ?? 'gone').toBe('gone');
  });

  it('an attach given up on with its device kept, then deleted by its client, gives its detach the whole attempt budget: a DetachVolume EC2 fails once is tried again after its own backoff', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    await h.ebs.attachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdf' });
    const updatedAt = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newAttachment('data-1', { device: '/dev/sdf', volumeCreatedAt: volume.createdAt, status: { state: 'error', code: 'RequestTimeout', message: 'Request timed out (gave up after 8 failed attempts)', attempts: 8, updatedAt } }),
    );
    await h.clock.advance(1000);
    h.ebs.failNext('DetachVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.watch();
    await h.drain();
    const failed = (await attachmentOf(h, 'data-1')).status;
    expect(failed).toMatchObject({ state: 'error', code: 'InternalError', attempts: 1, message: 'An internal error has occurred' });
    expect(Date.parse(failed.nextAttemptAt!) - h.clock.now()).toBeLessThanOrEqual(2000);
    await h.settle(60_000);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(volume.ebsVolumeId!)?.attachments).toEqual([]);
  });

  it('detaching an attachment that never attached removes it without any EC2 call', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1', { life: 'dying' }));
    const calls = { ...h.ebs.calls };
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.calls).toEqual(calls);
  });

  it('a volume never created is removed without any EC2 call', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1', { life: 'dying' }));
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(Object.values(h.ebs.calls).reduce((a: number, b) => a + (b as number), 0)).toBe(0);
  });

  it('detach before delete: a dying volume detaches everything, then is deleted', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    h.changes.splice(0);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.DeleteVolume ?? 0).toBe(0);
    expect((await attachmentOf(h, 'data-1')).life).toBe('dying');
    // The attachment's own change (life → dying) brings its detach, through the stream.
    await h.watch();
    await h.settle(30_000);
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    // The attachment's removal leads to a volume check, which (dying, detached) deletes it.
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    await h.settle(30_000);
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it("a dying volume's detach is enqueued once per attachment, whichever of executor and watcher makes the cascade", async () => {
    const detaches = (h: ReturnType<typeof harness>) => h.queued().filter((q) => q.op === 'detach');
    const dyingVolume = async () => {
      const h = harness();
      await attachedVolume(h, 'data-1');
      h.changes.splice(0);
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
      return h;
    };

    // The volume's message reaches the executor before the watcher planned its change.
    const executorFirst = await dyingVolume();
    await executorFirst.executor.run(executorFirst.batchOf(executorFirst.op('check-volume', volumeKey('data-1'))));
    await executorFirst.watch();

    // The watcher makes the cascade first; a late message for the volume then finds it waiting.
    const watcherFirst = await dyingVolume();
    await watcherFirst.watch();
    await watcherFirst.executor.run(watcherFirst.batchOf(watcherFirst.op('check-volume', volumeKey('data-1'))));
    await watcherFirst.watch();

    // Both plan the cascade: the watcher marks the attachment dying after the executor read it alive.
    const both = await dyingVolume();
    const store: RecordStore = Object.create(both.store);
    store.attachmentsOfVolume = async (volumeId) => {
      const attachments = await both.store.attachmentsOfVolume(volumeId);
      await both.watch();
      return attachments;
    };
    await new Executor({ store, queue: both.queue, provider: both.ebs, clock: both.clock, metrics: both.metrics, log: silentLog }).run(
      both.batchOf(both.op('check-volume', volumeKey('data-1'))),
    );
    await both.watch();

    for (const [order, h] of Object.entries({ executorFirst, watcherFirst, both })) {
      expect((await attachmentOf(h, 'data-1')).life).toBe('dying');
      expect(detaches(h), order).toEqual([{ op: 'detach', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
      for (let i = 0; i < 5; i++) {
        await h.settle(10_000);
        await h.watch();
      }
      expect(h.ebs.calls.DetachVolume, order).toBe(1);
      expect(h.ebs.calls.DeleteVolume, order).toBe(1);
      expect(await h.store.get(volumeKey('data-1')), order).toBeUndefined();
    }
  });

  it('detaches a volume attached again outside under another device name, naming it by volume and instance', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    const recorded = (await attachmentOf(h, 'data-1')).device;
    // Detached in the console and attached again as another device, before any check saw it.
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    await h.clock.advance(10_000);
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
    await h.clock.advance(10_000);
    expect(recorded).not.toBe('/dev/sdz');
    expect(h.ebs.volume(ebsVolumeId!)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdz', state: 'attached' }]);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    await h.settle(30_000);
    expect(h.ebs.volume(ebsVolumeId!)?.attachments).toEqual([]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });

  it('already detached and already deleted count as success', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1', { life: 'dying', device: '/dev/sdf', status: { state: 'attached', attempts: 0, updatedAt: new Date(START).toISOString() } }));
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();

    await h.ebs.deleteVolume(volume.ebsVolumeId!);
    await h.settle(30_000);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    await h.settle(10_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it('an attachment set back to alive in the table while its detach is under way is kept once the detach completes, and attached again', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    h.changes.length = 0;
    await setBackToAliveDuring(h, attachmentKey('data-1'), 'detach', 'detaching');
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ life: 'alive', device: '/dev/sdf', status: { state: 'attached', attempts: 0 } });
    expect(h.ebs.volume(ebsVolumeId!)?.attachments).toEqual([{ instanceId: INSTANCE, device: '/dev/sdf', state: 'attached' }]);
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');
    expect(h.ebs.calls.DetachVolume).toBe(1);
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('an attachment set back to alive during its detach, whose volume record is in error, says it waits for the volume\'s retry, not that it attaches again', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    // A tag change EC2 failed for good: the volume record waits in error for its client's retry.
    const failed = { state: 'error' as const, code: 'InternalError', message: 'tags boom (gave up after 8 failed attempts)', attempts: 8, updatedAt: new Date(h.clock.now()).toISOString() };
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: failed });
    await h.watch();
    await setBackToAliveDuring(h, attachmentKey('data-1'), 'detach', 'detaching');
    expect(await attachmentOf(h, 'data-1')).toMatchObject({
      life: 'alive',
      status: { state: 'pending', attempts: 0, message: 'volume data-1 is in error: InternalError; the attach waits until the volume is retried' },
    });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('an attachment set back to alive in the table while EC2 answers its detach "not attached" is kept, and attached again', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    // Detached in the console a while after the attach, before the record was set dying: EC2 answers the detach "not attached".
    await h.clock.advance(5 * 60_000);
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    await h.clock.advance(10_000);
    await setBackToAliveInCall(h, attachmentKey('data-1'), 'detach', 'detachVolume');
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ life: 'alive' });
    await watchUntilSettled(h);
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ life: 'alive', status: { state: 'attached' } });
    expect(h.ebs.volume(ebsVolumeId!)?.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, state: 'attached' })]);
    // The console's detach, then the executor's.
    expect(h.ebs.calls.DetachVolume).toBe(2);
    expect(h.ebs.calls.AttachVolume).toBe(2);
  });

  it('a volume set back to alive in the table while EC2 answers its delete "not found" is kept, in error, saying so', async () => {
    const h = harness();
    const { ebsVolumeId } = await availableVolume(h, 'data-1');
    // Deleted in the console a while after it was made, before the record was set dying: EC2 answers the delete "not found".
    await h.clock.advance(5 * 60_000);
    h.ebs.deleteBehindBack(ebsVolumeId!);
    await setBackToAliveInCall(h, volumeKey('data-1'), 'delete-volume', 'deleteVolume');
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    await watchUntilSettled(h);
    const kept = await volumeOf(h, 'data-1');
    expect(kept).toMatchObject({ life: 'alive', status: { state: 'error', code: 'InvalidVolume.NotFound' } });
    expect(kept.status.message).toMatch(/a retry creates a new, empty volume/);
  });

  it('a volume set back to alive while EC2 answers its delete "not found", whose claim the table fails to let go of, is kept, and brought in line once the claim lapses', async () => {
    const h = harness();
    const { ebsVolumeId } = await availableVolume(h, 'data-1');
    await h.clock.advance(5 * 60_000);
    h.ebs.deleteBehindBack(ebsVolumeId!);
    h.store.failNext('release', new Error('ProvisionedThroughputExceededException'));
    expect((await setBackToAliveInCall(h, volumeKey('data-1'), 'delete-volume', 'deleteVolume')).failedMessageIds).toEqual([]);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ life: 'alive', claim: expect.anything() });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.claimLeaseMs);
    await watchUntilSettled(h);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ life: 'alive', status: { state: 'error', code: 'InvalidVolume.NotFound' } });
  });

  it('a volume whose delete failed for good, set back to alive in the table, no longer says it is being deleted nor announces a next attempt', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    h.ebs.failNext('DeleteVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'refused'));
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'error', message: expect.stringMatching(/^refused; being deleted: trying again at /) });
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    await watchUntilSettled(h);
    await h.settle(20 * 60_000, 60_000);
    const kept = await volumeOf(h, 'data-1');
    expect(kept.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue', message: 'refused' });
    expect(kept.status.nextAttemptAt).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(1);
  });

  it('an attachment whose detach failed for good, set back to alive in the table, no longer says it is being deleted nor announces a next attempt', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    h.ebs.failNext('DetachVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'refused'));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect((await attachmentOf(h, 'data-1')).status).toMatchObject({ state: 'error', message: expect.stringMatching(/^refused; being deleted: trying again at /) });
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'alive' });
    await watchUntilSettled(h);
    await h.settle(20 * 60_000, 60_000);
    const kept = await attachmentOf(h, 'data-1');
    expect(kept.status.message).not.toMatch(/being deleted/);
    expect(kept.status.nextAttemptAt).toBeUndefined();
    expect(h.ebs.calls.DetachVolume).toBe(1);
  });

  it('a volume set back to alive in the table while EC2 deletes it is kept, in error, saying a retry creates a new, empty volume', async () => {
    const h = harness();
    const { ebsVolumeId } = await availableVolume(h, 'data-1');
    await setBackToAliveDuring(h, volumeKey('data-1'), 'delete-volume', 'deleting');
    const kept = await volumeOf(h, 'data-1');
    expect(kept).toMatchObject({
      life: 'alive',
      status: { state: 'error', code: 'InvalidVolume.NotFound', message: `volume ${ebsVolumeId} was deleted before the record was set back to alive; a retry creates a new, empty volume` },
    });
    expect(kept.ebsVolumeId).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)).toBeUndefined();
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    // Its retry (a generation bump, as the API's) creates a new volume.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { generation: kept.generation + 1 });
    await watchUntilSettled(h);
    const created = await volumeOf(h, 'data-1');
    expect(created.status.state).toBe('available');
    expect(created.ebsVolumeId).not.toBe(ebsVolumeId);
    expect(h.ebs.calls.CreateVolume).toBe(2);
  });

  it('a call EC2 refuses as not authorized leaves the encoded policy evaluation out of the status, and logs it in full', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    await availableVolume(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    const refusal =
      'You are not authorized to perform this operation. User: arn:aws:sts::111122223333:assumed-role/Executor/fn is not authorized to perform: ec2:DeleteVolume ' +
      'on resource: arn:aws:ec2:us-east-1:111122223333:volume/vol-1 because no identity-based policy allows the ec2:DeleteVolume action. Encoded authorization failure message: Zm9vYmFy-_x0';
    h.ebs.failNext('DeleteVolume', new ProviderError('unauthorized', 'UnauthorizedOperation', refusal));
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    const { status } = await volumeOf(h, 'data-1');
    expect(status.code).toBe('UnauthorizedOperation');
    expect(status.message).toContain('is not authorized to perform: ec2:DeleteVolume');
    expect(status.message).toContain("Encoded authorization failure message: in the executor's log");
    expect(status.message).not.toContain('Zm9vYmFy');
    expect(log.entries).toContainEqual({ level: 'warn', message: 'EC2 refused the call: not authorized', attributes: { key: 'volume/data-1', action: 'DeleteVolume', error: refusal } });
  });

  it('delete waits while the volume is still in use', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    h.ebs.failNext('DeleteVolume', new ProviderError('incorrect-state', 'VolumeInUse', `Volume ${volume.ebsVolumeId} is currently attached`));
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'available', code: 'VolumeInUse', attempts: 1, message: expect.stringMatching(/^waiting: /) });
    await h.settle(30_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
  });

  it('delete refused while a detach is still finishing in EC2 waits for it: no attachment outside the system is reported', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    await h.ebs.attachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE, device: '/dev/sdz' });
    await h.clock.advance(30_000);
    await h.ebs.describeVolumes([volume.ebsVolumeId!]);
    await h.ebs.detachVolume({ ebsVolumeId: volume.ebsVolumeId!, instanceId: INSTANCE });
    expect(h.ebs.volume(volume.ebsVolumeId!)?.attachments).toMatchObject([{ state: 'detaching' }]);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'available', code: 'VolumeInUse', attempts: 1, message: expect.stringMatching(/^waiting: /) });
    expect((await volumeOf(h, 'data-1')).status.message).not.toContain('outside the system');
  });
});

/** An executor whose DetachVolume requests are kept in `detaches`; `loseAnswers` of them reach EC2 and then time out. */
function executorRecordingDetaches(h: ReturnType<typeof harness>, loseAnswers = 0) {
  const detaches: { ebsVolumeId: string; instanceId: string; force?: boolean }[] = [];
  let lost = 0;
  const provider = providerOver(h.ebs, {
    detachVolume: async (request) => {
      detaches.push(request);
      await h.ebs.detachVolume(request);
      if (lost++ < loseAnswers) throw new ProviderError('transient', 'RequestTimeout', 'DetachVolume timed out');
    },
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
  return { executor, detaches };
}

/** A volume attached to INSTANCE that EC2 cannot detach without force (busy there), its records to match. */
async function busyAttachedVolume(h: ReturnType<typeof harness>, volumeId: string): Promise<string> {
  await attachedVolume(h, volumeId);
  const { ebsVolumeId } = await volumeOf(h, volumeId);
  h.ebs.keepBusy(ebsVolumeId!, INSTANCE);
  await h.watch();
  await h.settle(10_000);
  h.changes.length = 0;
  return ebsVolumeId!;
}

/**
 * Marks data-1's attachment dying and runs the executor for ten minutes: its one plain
 * DetachVolume leaves the busy volume detaching.
 */
async function stuckPlainDetach(h: ReturnType<typeof harness>, ebsVolumeId: string) {
  const recording = executorRecordingDetaches(h);
  await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
  await runFor(h, recording.executor, 10 * 60_000);
  expect(recording.detaches).toEqual([{ ebsVolumeId, instanceId: INSTANCE }]);
  expect((await attachmentOf(h, 'data-1')).status.state).toBe('detaching');
  return recording;
}

describe('executor: forced detach', () => {
  it('a dying attachment with force set detaches with Force, once, and is removed though its volume is busy on the instance', async () => {
    const h = harness();
    const ebsVolumeId = await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = executorRecordingDetaches(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying', forceDetach: true });
    await runFor(h, executor, 60_000);
    expect(detaches).toEqual([{ ebsVolumeId, instanceId: INSTANCE, force: true }]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });

  it('a plain detach stuck on a busy volume, then forced: one more DetachVolume, with Force, and the attachment is removed', async () => {
    const h = harness();
    const ebsVolumeId = await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = await stuckPlainDetach(h, ebsVolumeId);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    await runFor(h, executor, 10 * 60_000);
    expect(detaches).toEqual([
      { ebsVolumeId, instanceId: INSTANCE },
      { ebsVolumeId, instanceId: INSTANCE, force: true },
    ]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });

  it('a repeated message of a stuck detach forced sends no second forced call', async () => {
    const h = harness();
    await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = executorRecordingDetaches(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    await h.clock.advance(60_000);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    await executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    await executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect(detaches.map((d) => d.force === true)).toEqual([false, true]);
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ forceDetachSentAt: new Date(h.clock.now()).toISOString(), status: { state: 'detaching', message: 'detaching (forced)' } });
  });

  it('a forced call whose answer is lost is sent again at its retry: after one that took, EC2 answers it detached and the attachment is removed', async () => {
    const h = harness();
    await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = executorRecordingDetaches(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    const lossy = executorRecordingDetaches(h, 1);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    await lossy.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect(lossy.detaches).toEqual([expect.objectContaining({ force: true })]);
    h.changes.length = 0;
    await runFor(h, executor, 10 * 60_000);
    expect(detaches.map((d) => d.force === true)).toEqual([false, true]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });

  it('a forced call that failed without a definite answer (EC2 unavailable) is sent again at its retry, not left until the plain detach gives up hours later', async () => {
    const h = harness();
    const ebsVolumeId = await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = await stuckPlainDetach(h, ebsVolumeId);
    h.ebs.failNext('DetachVolume', new ProviderError('transient', 'Unavailable', 'The service is unavailable. Please try again shortly.'));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    await runFor(h, executor, 5 * 60_000);
    expect(detaches.map((d) => d.force === true)).toEqual([false, true, true]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toEqual([]);
  });

  it('a forced call recorded by an invocation that stopped before making it is sent once that claim lapses, not left until the plain detach gives up hours later', async () => {
    const h = harness();
    const ebsVolumeId = await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = await stuckPlainDetach(h, ebsVolumeId);
    // What an invocation leaves that took the forced detach's message, wrote the time of its call under its claim and stopped (a timeout, a crash).
    expect((await h.store.claim(attachmentKey('data-1'), 'stopped-invocation', h.clock.now(), DEFAULT_ENGINE_CONFIG.claimLeaseMs)).ok).toBe(true);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true, forceDetachSentAt: new Date(h.clock.now()).toISOString() });
    h.changes.length = 0;
    await runFor(h, executor, 10 * 60_000);
    expect(detaches.map((d) => d.force === true)).toEqual([false, true]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });

  it('a plain detach stuck until its budget ends in error (Timeout), then forced: detached with Force at once, not after the 15-minute retry', async () => {
    const h = harness();
    const ebsVolumeId = await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = executorRecordingDetaches(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    for (let spent = 0; spent < 7 * 3_600_000 && (await attachmentOf(h, 'data-1')).status.state !== 'error'; spent += 60_000) {
      await h.watch();
      const received = h.queue.receive(100);
      if (received.length > 0) await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
      for (const r of received) h.queue.delete(r.receiptHandle);
      await h.clock.advance(60_000);
    }
    const stuck = await attachmentOf(h, 'data-1');
    expect(stuck).toMatchObject({ device: '/dev/sdf', status: { state: 'error', code: 'Timeout' } });
    const plainCalls = detaches.length;
    expect(detaches.every((d) => d.force === undefined)).toBe(true);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    await runFor(h, executor, 60_000);
    expect(detaches.slice(plainCalls)).toEqual([{ ebsVolumeId, instanceId: INSTANCE, force: true }]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });

  it('a plain detach stuck and then forced gets its forced call though a forced call of an earlier detach (the record set back to alive since) is recorded', async () => {
    const h = harness();
    const ebsVolumeId = await busyAttachedVolume(h, 'data-1');
    // Left by a forced detach whose answer was lost, before the record was set back to alive in the table and attached again.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetachSentAt: new Date(h.clock.now() - 3_600_000).toISOString() });
    const { executor, detaches } = await stuckPlainDetach(h, ebsVolumeId);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    await runFor(h, executor, 60_000);
    expect(detaches.map((d) => d.force === true)).toEqual([false, true]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });

  it("a volume's delete does not force the detach of a live attachment carrying forceDetach (written into the table while alive): it is dropped", async () => {
    const h = harness();
    const ebsVolumeId = await busyAttachedVolume(h, 'data-1');
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    const { executor, detaches } = executorRecordingDetaches(h);
    await h.store.update<VolumeRecord>({ kind: 'volume', volumeId: 'data-1' }, { life: 'dying' });
    await runFor(h, executor, 5 * 60_000);
    expect(detaches).toEqual([{ ebsVolumeId, instanceId: INSTANCE }]);
    const attachment = await attachmentOf(h, 'data-1');
    expect(attachment).toMatchObject({ life: 'dying', status: { state: 'detaching' } });
    expect(attachment).not.toHaveProperty('forceDetach');
  });

  it('a forced call EC2 refused for certain is sent again at its retry', async () => {
    const h = harness();
    await busyAttachedVolume(h, 'data-1');
    const { executor, detaches } = executorRecordingDetaches(h);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    h.ebs.failNext('DetachVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { forceDetach: true });
    h.changes.length = 0;
    await executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect((await attachmentOf(h, 'data-1')).forceDetachSentAt).toBeUndefined();
    await runFor(h, executor, 10 * 60_000);
    expect(detaches.map((d) => d.force === true)).toEqual([false, true, true]);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
  });
});

describe('executor: batching', () => {
  it('a batch of 100 state checks makes exactly 1 DescribeVolumes call', async () => {
    const h = harness({ config: { rateBudgets: { CreateVolume: { burst: 100, ratePerSecond: 10 }, AttachVolume: { burst: 20, ratePerSecond: 1 }, DeleteVolume: { burst: 20, ratePerSecond: 1 }, CreateTags: { burst: 20, ratePerSecond: 2 } } } });
    const ids = Array.from({ length: 100 }, (_, i) => `v${i}`);
    for (const id of ids) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.ebs.calls.CreateVolume).toBe(100);
    await h.clock.advance(10_000);
    const before = h.ebs.calls.DescribeVolumes ?? 0;
    await h.executor.run(h.batchOf(...ids.map((id) => h.op('check-volume', volumeKey(id)))));
    expect(h.ebs.calls.DescribeVolumes).toBe(before + 1);
    const states = await Promise.all(ids.map(async (id) => (await volumeOf(h, id)).status.state));
    expect(new Set(states)).toEqual(new Set(['available']));
  });

  it('mutating calls past the rate budget are deferred without an EC2 call, a write or a used attempt', async () => {
    const budgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 2, ratePerSecond: 1 } };
    const h = harness({ config: { rateBudgets: budgets } });
    const ids = ['a', 'b', 'c', 'd'];
    for (const id of ids) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.ebs.calls.CreateVolume).toBe(2);
    // A message comes back when the token would be there.
    await expectDeferredCreates(h, { c: 1, d: 2 });
    await h.settle(60_000);
    expect(h.ebs.calls.CreateVolume).toBe(4);
    for (const id of ids) expect((await volumeOf(h, id)).status.state).toBe('available');
  });

  it('waits for a token no longer than the invocation has time left for; defers the rest', async () => {
    const budgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } };
    const h = harness({ config: { rateBudgets: budgets, rateWaitMaxMs: 10_000 } });
    for (const id of ['a', 'b']) await h.store.create(newVolume(id));
    // 10.5 s left, 10 s of which are kept for writes and follow-ups: half a second to wait, a token is a second away.
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), h.op('create-volume', volumeKey('b'))), { remainingTimeMs: 10_500 });
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'b')).status).toMatchObject({ state: 'pending', attempts: 0 });
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([{ op: 'create-volume', key: 'b', delaySeconds: 1 }]);
  });

  it('with a wait allowance, calls wait for tokens on the clock instead', async () => {
    const budgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 2, ratePerSecond: 1 } };
    const h = harness({ config: { rateBudgets: budgets, rateWaitMaxMs: 5000 } });
    for (const id of ['a', 'b', 'c', 'd']) await h.store.create(newVolume(id));
    const run = h.executor.run(h.batchOf(...['a', 'b', 'c', 'd'].map((id) => h.op('create-volume', volumeKey(id)))));
    await h.clock.advance(0);
    expect(h.ebs.calls.CreateVolume).toBe(2);
    await h.clock.advance(1000);
    expect(h.ebs.calls.CreateVolume).toBe(3);
    await h.clock.advance(1000);
    await run;
    expect(h.ebs.calls.CreateVolume).toBe(4);
  });
});

describe('executor: the shared rate budget', () => {
  // Each environment's own share is one token; EC2's bucket, shared, is three with one more a second.
  const ownShare = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 1 } };
  const account = { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, CreateVolume: { burst: 3, ratePerSecond: 1 } };

  it('one environment spends the burst the others are not using; the next one defers to when the refill has its tokens', async () => {
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: new MemoryRateBudget() });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    for (const id of ids) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...['a', 'b', 'c'].map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.ebs.calls.CreateVolume).toBe(3);
    await h.environment().run(h.batchOf(h.op('create-volume', volumeKey('d')), h.op('create-volume', volumeKey('e'))));
    expect(h.ebs.calls.CreateVolume).toBe(3);
    // Messages due at the shared refill's pace.
    await expectDeferredCreates(h, { d: 1, e: 2 });
    await h.settle(30_000);
    expect(h.ebs.calls.CreateVolume).toBe(5);
    for (const id of ids) expect((await volumeOf(h, id)).status.state).toBe('available');
  });

  it('waits for tokens the shared budget grants ahead, within the wait allowance', async () => {
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account, rateWaitMaxMs: 2000 }, rateBudget: new MemoryRateBudget() });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (const id of ids) await h.store.create(newVolume(id));
    const run = h.executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));
    await h.clock.advance(0);
    expect(h.ebs.calls.CreateVolume).toBe(3);
    await h.clock.advance(1000);
    expect(h.ebs.calls.CreateVolume).toBe(4);
    await h.clock.advance(1000);
    await run;
    expect(h.ebs.calls.CreateVolume).toBe(5);
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([{ op: 'create-volume', key: 'f', delaySeconds: 1 }]);
  });

  it('an operation deferred for want of a token takes it ahead and comes back to spend it: later requests queue behind it', async () => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    const ids = ['a', 'b', 'c', 'd', 'e'];
    for (const id of ids) await h.store.create(newVolume(id));
    const start = h.clock.now();
    await h.executor.run(h.batchOf(...['a', 'b', 'c', 'd'].map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.ebs.calls.CreateVolume).toBe(3);
    // Asked for later, by another environment: its token comes after the one d holds.
    await h.environment().run(h.batchOf(h.op('create-volume', volumeKey('e'))));
    const deferred = h.queue.pending().filter((p) => p.message.op === 'create-volume');
    expect(deferred.map((p) => [p.message.key, p.message.tokenAt, p.visibleAt - start])).toEqual([
      [volumeKey('d'), start + 1000, 1000],
      [volumeKey('e'), start + 2000, 2000],
    ]);
    // Back at their tokens, they spend them without taking others: no second deferral, no RequestLimitExceeded.
    const level = shared.level('CreateVolume');
    await h.clock.advance(1000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume).toBe(4);
    await h.clock.advance(1000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume).toBe(5);
    expect(shared.level('CreateVolume')).toEqual(level);
    expect(h.metrics.outcomes('create-volume').filter((o) => o === 'throttled')).toHaveLength(2);
  });

  it('a check that plans a call (the reconciler\'s nudge) takes only a token usable now, and without one is dropped: the operation\'s own message may hold one', async () => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    for (const id of ['a', 'b', 'c', 'd', 'e']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...['a', 'b', 'c'].map((id) => h.op('create-volume', volumeKey(id)))));
    const level = shared.level('CreateVolume')!;
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('d')), h.op('create-volume', volumeKey('e'))));
    expect(h.ebs.calls.CreateVolume).toBe(3);
    const deferred = h.queue.pending().filter((p) => p.message.key.kind === 'volume' && ['d', 'e'].includes(p.message.key.volumeId));
    expect(deferred.map((p) => [p.message.key, p.message.tokenAt])).toEqual([[volumeKey('e'), h.clock.now() + 1000]]);
    expect((await volumeOf(h, 'd')).status).toMatchObject({ state: 'pending', attempts: 0 });
    // One token taken ahead, e's: d's check left the bucket alone.
    expect(shared.level('CreateVolume')!.tokens).toBe(level.tokens - 1);
  });

  it.each([
    ['a check alone is dropped, taking no token', ['check-volume'], []],
    ['copies of a check are dropped, taking no token', ['check-volume', 'check-volume'], []],
    ["the operation's own message behind a check of the record is deferred with its token", ['check-volume', 'create-volume'], ['create-volume']],
    ["the operation's own message ahead of a check of the record is deferred with its token", ['create-volume', 'check-volume'], ['create-volume']],
    ["copies of the operation's own message are deferred once, with one token", ['create-volume', 'create-volume'], ['create-volume']],
  ] as const)('with no token usable now, %s', async (_, ops, deferredOps) => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    for (const id of ['a', 'b', 'c', 'd']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...['a', 'b', 'c'].map((id) => h.op('create-volume', volumeKey(id)))));
    const level = shared.level('CreateVolume')!;
    await h.executor.run(h.batchOf(...ops.map((op) => h.op(op, volumeKey('d')))));
    expect(h.ebs.calls.CreateVolume).toBe(3);
    expect((await volumeOf(h, 'd')).status).toMatchObject({ state: 'pending', attempts: 0 });
    const queued = h.queue.pending().filter((p) => p.message.key.kind === 'volume' && p.message.key.volumeId === 'd');
    expect(queued.map((p) => [p.message.op, p.message.tokenAt])).toEqual(deferredOps.map((op) => [op, h.clock.now() + 1000]));
    expect(shared.level('CreateVolume')!.tokens).toBe(level.tokens - deferredOps.length);
    if (deferredOps.length === 0) return;
    await h.settle(30_000);
    expect(h.ebs.calls.CreateVolume).toBe(4);
    expect((await volumeOf(h, 'd')).status.state).toBe('available');
  });

  it.each([
    ['first', [1000, 600_000]],
    ['second', [600_000, 1000]],
  ] as const)('copies of one message carrying different tokens spend the earliest, taking none: the earliest comes %s', async (_, offsets) => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    await h.store.create(newVolume('a'));
    const start = h.clock.now();
    await h.clock.advance(1000);
    await h.executor.run(h.batchOf(...offsets.map((offset) => ({ ...h.op('create-volume', volumeKey('a')), tokenAt: start + offset }))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(shared.level('CreateVolume')).toBeUndefined();
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([]);
  });

  it('calls whose messages all come back a while after their tokens\' time still go, every one: a late token is spent, whatever its age', async () => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    // Every message is delivered 5 s after it is due, longer than the bucket of 3 takes to refill at 1 a second.
    const lateQueue = { send: (operations: QueuedOperation[]) => h.queue.send(operations.map((o) => ({ ...o, delaySeconds: Math.min(900, o.delaySeconds + 5) }))) };
    const executor = new Executor({ store: h.store, queue: lateQueue, clock: h.clock, metrics: h.metrics, log: silentLog, provider: h.ebs, rateBudget: shared, config: { rateWaitMaxMs: 0, concurrentEnvironments: 1, rateBudgets: ownShare, accountRateBudgets: account } });
    const ids = Array.from({ length: 12 }, (_, i) => `v${i}`);
    for (const id of ids) await h.store.create(newVolume(id));
    await executor.run(h.batchOf(...ids.map((id) => h.op('create-volume', volumeKey(id)))));
    for (let second = 0; second < 300; second++) {
      await h.clock.advance(1000);
      const received = h.queue.receive(100);
      await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message })));
      for (const r of received) h.queue.delete(r.receiptHandle);
    }
    expect(h.ebs.calls.CreateVolume).toBe(ids.length);
  });

  it('a message back before the token it carries waits for that token again, taking none', async () => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    await h.store.create(newVolume('a'));
    const tokenAt = h.clock.now() + 5000;
    await h.executor.run(h.batchOf({ ...h.op('create-volume', volumeKey('a')), tokenAt }));
    expect(h.ebs.calls.CreateVolume).toBe(0);
    expect(shared.level('CreateVolume')).toBeUndefined();
    expect(h.queue.pending().map((p) => [p.message.tokenAt, p.visibleAt - h.clock.now()])).toEqual([[tokenAt, 5000]]);
    await h.clock.advance(5000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(shared.level('CreateVolume')).toBeUndefined();
  });

  it.each([
    ['another invocation claimed the record after it was read', 'claimed'],
    ['the record changed between the read and the pre-call write', 'changed'],
    ['the record is claimed elsewhere and the message carries a token taken ahead', 'carried'],
  ] as const)('an operation sent again before its call because %s keeps its token and spends it when back, taking no second one', async (_, why) => {
    const shared = new MemoryRateBudget();
    const config = { rateBudgets: ownShare, accountRateBudgets: account };
    const h = harness({ config, rateBudget: shared });
    await h.store.create(newVolume('a'));
    const start = h.clock.now();
    if (why === 'carried') await h.store.claim(volumeKey('a'), 'other-invocation', start, 60_000);
    // What another invocation does between this one's read and its claim.
    let meanwhile: (() => Promise<unknown>) | undefined =
      why === 'claimed'
        ? () => h.store.claim(volumeKey('a'), 'other-invocation', start, 60_000)
        : why === 'changed'
          ? async () => h.store.update<VolumeRecord>(volumeKey('a'), { status: { ...(await volumeOf(h, 'a')).status, message: 'a status note' } })
          : undefined;
    const store: RecordStore = Object.create(h.store);
    store.getMany = async (keys) => {
      const records = await h.store.getMany(keys);
      await meanwhile?.();
      meanwhile = undefined;
      return records;
    };
    const executor = new Executor({ store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, rateBudget: shared, config });
    await executor.run(h.batchOf({ ...h.op('create-volume', volumeKey('a')), ...(why === 'carried' ? { tokenAt: start } : {}) }));
    expect(h.ebs.calls.CreateVolume ?? 0).toBe(0);
    expect(h.queue.pending().map((p) => [p.message.op, p.message.tokenAt])).toEqual([['create-volume', start]]);
    const level = shared.level('CreateVolume');
    if (why !== 'changed') await h.store.release(volumeKey('a'), 'other-invocation');
    await h.clock.advance(60_000);
    await h.drain();
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'a')).status.state).toBe('creating');
    expect(shared.level('CreateVolume')).toEqual(level);
  });

  it.each([
    ['behind', ['check-volume', 'create-volume']],
    ['ahead of', ['create-volume', 'check-volume']],
  ] as const)('an operation\'s message delivered %s a check of the same record spends the token it carries, taking none', async (_, ops) => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    for (const id of ['a', 'b', 'c', 'd']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(...['a', 'b', 'c'].map((id) => h.op('create-volume', volumeKey(id)))));
    const level = shared.level('CreateVolume');
    const tokenAt = h.clock.now();
    await h.executor.run(h.batchOf(...ops.map((op) => ({ ...h.op(op, volumeKey('d')), ...(op === 'create-volume' ? { tokenAt } : {}) }))));
    expect(h.ebs.calls.CreateVolume).toBe(4);
    expect((await volumeOf(h, 'd')).status.state).toBe('creating');
    expect(shared.level('CreateVolume')).toEqual(level);
  });

  it('attachments a check releases take only tokens usable now; the rest are left to the watcher\'s message, with no token taken ahead', async () => {
    const shared = new MemoryRateBudget();
    const oneAttach = { ...DEFAULT_ENGINE_CONFIG.accountRateBudgets, AttachVolume: { burst: 1, ratePerSecond: 0.1 } };
    const h = harness({ config: { accountRateBudgets: oneAttach }, rateBudget: shared });
    await availableVolume(h, 'other');
    await h.store.create(newAttachment('other'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('other'))));
    expect(h.ebs.calls.AttachVolume).toBe(1);
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.clock.advance(3000);
    const level = shared.level('AttachVolume');
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(h.queued().filter((q) => q.op === 'attach')).toEqual([]);
    expect(shared.level('AttachVolume')!.tokens).toBeGreaterThanOrEqual(level!.tokens);
    // The watcher's message for it takes its token ahead, once.
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(h.queue.pending().filter((p) => p.message.op === 'attach').map((p) => p.message.tokenAt)).toEqual([expect.any(Number)]);
  });

  it('after RequestLimitExceeded the shared budget sells one refill fewer for each refusal; the refused environment is also held to its own slowed share, the others are not', async () => {
    const shared = new MemoryRateBudget();
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: shared });
    for (const id of ['a', 'b', 'c']) await h.store.create(newVolume(id));
    h.ebs.failNext('CreateVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a'))));
    expect((await volumeOf(h, 'a')).status).toMatchObject({ code: 'RequestLimitExceeded', attempts: 0 });
    // Three tokens: one spent on the refused call, one taken for the refusal.
    expect(shared.level('CreateVolume')).toEqual({ tokens: 1, updatedAt: h.clock.now() });
    // The refused environment takes the shared budget's token, but its own halved share has none: no call, the operation deferred.
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('b'))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'b')).status).toMatchObject({ attempts: 0 });
    expect(h.queued().filter((q) => q.key === 'b')).toEqual([expect.objectContaining({ op: 'create-volume' })]);
    expect(shared.level('CreateVolume')).toEqual({ tokens: 0, updatedAt: h.clock.now() });
    // Another environment, not refused itself, spends the shared budget alone: the refill's next token, when it comes.
    await h.clock.advance(1000);
    await h.environment().run(h.batchOf(h.op('create-volume', volumeKey('c'))));
    expect(h.ebs.calls.CreateVolume).toBe(2);
    await h.settle(60_000);
    for (const id of ['a', 'b', 'c']) expect((await volumeOf(h, id)).status.state).toBe('available');
  });

  it('when the shared budget cannot be reached, the environment spends its own share and says so', async () => {
    const log = new RecordingLog();
    const unreachable: SharedRateBudget = { take: async () => Promise.reject(new Error('table unavailable')), waitMs: async () => Promise.reject(new Error('table unavailable')) };
    const h = harness({ config: { rateBudgets: ownShare, accountRateBudgets: account }, rateBudget: unreachable, log });
    for (const id of ['a', 'b']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), h.op('create-volume', volumeKey('b'))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect((await volumeOf(h, 'b')).status).toMatchObject({ state: 'pending', attempts: 0 });
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringMatching(/shared rate budget unavailable/), attributes: expect.objectContaining({ bucket: 'CreateVolume', error: 'table unavailable' }) }));
  });
});

describe('executor: progress checks', () => {
  it('a check that finds the operation still under way writes nothing, and the next check falls on the shared grid', async () => {
    const h = harness({ ebsTimings: { create: 20_000 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    const created = await volumeOf(h, 'data-1');
    expect(created.status.state).toBe('creating');
    await h.clock.advance(3000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    // No claim, no status write: the record is the version the create left.
    expect(await volumeOf(h, 'data-1')).toEqual(created);
    // Visible a batching window before a point of the 2 s grid, so its batch forms on that point.
    const [next] = h.queued().filter((q) => q.op === 'check-volume');
    const batchedAt = h.clock.now() + (next!.delaySeconds + DEFAULT_ENGINE_CONFIG.queueBatchingWindowSeconds) * 1000;
    expect(batchedAt % 2000).toBeLessThan(1000);
    await h.settle(30_000);
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
  });

  it('a check leaves a record another invocation holds a claim on alone until the claim ends', async () => {
    const h = harness({ ebsTimings: { create: 20_000 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.store.claim(volumeKey('data-1'), 'someone-else', h.clock.now(), 60_000);
    const held = await volumeOf(h, 'data-1');
    const describes = h.ebs.calls.DescribeVolumes ?? 0;
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.DescribeVolumes ?? 0).toBe(describes);
    expect(await volumeOf(h, 'data-1')).toEqual(held);
    expect(h.queued().filter((q) => q.op === 'check-volume').map((q) => q.delaySeconds)).toContain(60);
  });
});

describe('executor: one describe per transition', () => {
  it("an attach check writes the volume's in-use state from its own DescribeVolumes: no check of the volume follows", async () => {
    const h = harness();
    await attachingVolume(h, 'data-1');
    await h.clock.advance(10_000);
    const describes = h.ebs.calls.DescribeVolumes ?? 0;
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attached');
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');
    expect(h.queued().filter((q) => q.op === 'check-volume')).toEqual([]);
  });

  it('a volume that changed since the batch read it is checked on its own instead', async () => {
    const h = harness();
    await attachingVolume(h, 'data-1');
    await h.clock.advance(10_000);
    // The volume record moves on between the batch's read and its writes.
    const executor = executorWritingAfterRead(h, async () => {
      const volume = await volumeOf(h, 'data-1');
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { ...volume.status, message: 'touched' } });
    });
    await executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attached');
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    expect(h.queued()).toContainEqual({ op: 'check-volume', key: 'data-1', delaySeconds: 0 });
    await h.drain();
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');
  });

  it('a detach check of a dying volume writes it available, so its deletion needs no check of its own', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    h.changes.splice(0);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    await h.watch();
    await h.drain();
    expect(h.ebs.calls.DetachVolume).toBe(1);
    await h.clock.advance(10_000);
    const describes = h.ebs.calls.DescribeVolumes ?? 0;
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    expect(h.queued().filter((q) => q.op === 'check-volume')).toEqual([]);
    // The attachment's removal replans the volume (the watcher does this on the stream): straight to DeleteVolume.
    await h.executor.run(h.batchOf(h.op('delete-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.DeleteVolume).toBe(1);
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
  });

  it('a check that sees a volume become available attaches its waiting attachment in the same invocation', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attaching');
  });

  it('a check that finds a retried volume (pending, with its EC2 volume) available attaches its waiting attachment in the same invocation', async () => {
    const h = harness();
    const created = await availableVolume(h, 'data-1');
    // Retried after an error: back to pending, its EC2 volume kept, for a check to look at before anything else.
    const at = new Date(h.clock.now()).toISOString();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { status: { state: 'pending', attempts: 0, updatedAt: at } });
    await h.store.create(newAttachment('data-1', { status: { state: 'pending', attempts: 0, updatedAt: at, message: 'waiting for volume data-1 to become available' } }));
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect(await volumeOf(h, 'data-1')).toMatchObject({ ebsVolumeId: created.ebsVolumeId, status: { state: 'available' } });
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attaching');
  });

  it('a check that sees a volume become available looks at once at its waiting attachment that kept a device, then attaches it', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    // Left by an attach whose answer was lost (on a volume since gone), then waiting for this one.
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newAttachment('data-1', { device: '/dev/sdf', status: { state: 'pending', message: 'waiting for volume data-1 to become available', attempts: 1, updatedAt: at } }));
    await h.clock.advance(10_000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    const looked = await attachmentOf(h, 'data-1');
    expect(looked.status).toMatchObject({ state: 'pending', message: 'not attached; attaching afresh', attempts: 1 });
    expect(looked.device).toBeUndefined();
    expect(h.queued()).toContainEqual({ op: 'attach', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
    await h.drain();
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attaching');
  });

  it('a check that finds an attachment that kept its device not attached says what it waits for, when its volume is attached to another instance', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    // Left by an attach to the other instance whose answer was lost, and which EC2 never made.
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE, device: '/dev/sdg', status: { state: 'pending', code: 'RequestTimeout', message: 'AttachVolume timed out', attempts: 1, updatedAt: at } }));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', OTHER_INSTANCE))));
    const looked = (await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))) as AttachmentRecord;
    expect(looked.device).toBeUndefined();
    expect(looked.status).toMatchObject({ state: 'pending', message: 'waiting for volume data-1 to be detached from its other instance' });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('a check that finds an attachment that kept its device not attached judges its volume as EC2 shows it: a volume record still in use while EC2 lists it attached nowhere is brought in line, and the attach follows', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const ebsVolumeId = (await volumeOf(h, 'data-1')).ebsVolumeId!;
    // Detached outside; the volume record still says in use.
    await h.ebs.detachVolume({ ebsVolumeId, instanceId: INSTANCE });
    await h.clock.advance(10_000);
    expect(h.ebs.volume(ebsVolumeId)).toMatchObject({ state: 'available', attachments: [] });
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');
    // Left by an attach to the other instance whose answer was lost, and which EC2 never made.
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE, device: '/dev/sdg', status: { state: 'pending', code: 'RequestTimeout', message: 'AttachVolume timed out', attempts: 1, updatedAt: at } }));
    const describesBefore = h.ebs.calls.DescribeVolumes ?? 0;
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', OTHER_INSTANCE))));
    const looked = (await h.store.get(attachmentKey('data-1', OTHER_INSTANCE))) as AttachmentRecord;
    expect(looked.device).toBeUndefined();
    expect(looked.status).toMatchObject({ state: 'pending', message: 'not attached; attaching afresh' });
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    expect(h.ebs.calls.DescribeVolumes).toBe(describesBefore + 1);
    await h.drain();
    expect(h.ebs.calls.AttachVolume).toBe(2);
    expect(h.ebs.volume(ebsVolumeId)?.attachments).toMatchObject([{ instanceId: OTHER_INSTANCE, device: expect.any(String) }]);
  });

  it("releases the waiting attachment while the batch's other calls still wait for rate tokens", async () => {
    const budgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 1, ratePerSecond: 0.2 } };
    const h = harness({ config: { rateBudgets: budgets, rateWaitMaxMs: 10_000 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    await h.clock.advance(10_000);
    // data-2's create needs a token 5 s away; data-1's check is in the same batch.
    await h.store.create(newVolume('data-2'));
    await h.store.create(newVolume('data-3'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-2'))));
    const run = h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1')), h.op('create-volume', volumeKey('data-3'))));
    await h.clock.advance(0);
    expect(h.ebs.calls.CreateVolume).toBe(2);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attaching');
    await h.clock.advance(5000);
    await run;
    expect(h.ebs.calls.CreateVolume).toBe(3);
  });

  it('an attach message for an attach already under way waits for its check time instead of describing now', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    const describes = h.ebs.calls.DescribeVolumes ?? 0;
    const before = h.queued().length;
    // A second release of the same attachment (the watcher's, after the executor's own).
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(h.ebs.calls.DescribeVolumes ?? 0).toBe(describes);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    const added = h.queued().slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({ op: 'check-attachment', key: 'data-1/' + INSTANCE });
    expect(added[0]!.delaySeconds).toBeGreaterThan(0);
    await h.settle(20_000);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attached');
  });
});

describe('executor: instance descriptions', () => {
  it('reuses an instance it described within the TTL, takes devices in use from the records, and describes again after a failed attach', async () => {
    const h = harness();
    for (const id of ['a', 'b', 'c', 'd']) await availableVolume(h, id);
    const before = h.ebs.calls.DescribeInstances ?? 0;
    await h.store.create(newAttachment('a'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('a', INSTANCE))));
    expect(h.ebs.calls.DescribeInstances).toBe(before + 1);

    // Another environment attaches b: this one's cached mappings do not show its device, the records do.
    const other = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.store.create(newAttachment('b'));
    await other.run(h.batchOf(h.op('attach', attachmentKey('b', INSTANCE))));
    await h.store.create(newAttachment('c'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('c', INSTANCE))));
    // The other environment used the description this one left on a's record.
    expect(h.ebs.calls.DescribeInstances).toBe(before + 1);
    expect((await attachmentOf(h, 'b')).instanceSeen).toMatchObject({ availabilityZone: AZ, state: 'running' });
    const devices = await Promise.all(['a', 'b', 'c'].map(async (id) => (await attachmentOf(h, id)).device));
    expect(new Set(devices).size).toBe(3);

    await h.store.create(newAttachment('d'));
    h.ebs.failNext('AttachVolume', new ProviderError('device-in-use', 'InvalidParameterValue', 'Attachment point is already in use'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('d', INSTANCE))));
    expect(h.ebs.calls.DescribeInstances).toBe(before + 1);
    expect((await attachmentOf(h, 'd')).status).toMatchObject({ state: 'pending', attempts: 1 });
    // The retry describes the instance afresh, not from a record's description.
    await h.settle(30_000);
    expect(h.ebs.calls.DescribeInstances).toBe(before + 2);
    expect((await attachmentOf(h, 'd')).status.state).toBe('attached');
  });

  it("a description left on another environment's record is judged again on a fresh one before an attach fails for it", async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    // A record claims the instance sits in another AZ (written straight into the table, or stale).
    await h.store.create(newAttachment('data-0', { device: '/dev/sdz', instanceSeen: { availabilityZone: 'eu-west-1c', state: 'running', otherDevices: ['/dev/xvda'], describedAt: h.clock.now() } }));
    await h.store.create(newAttachment('data-1'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    expect(h.ebs.calls.DescribeInstances ?? 0).toBe(0);
    expect((await attachmentOf(h, 'data-1')).status).toMatchObject({ state: 'pending', code: 'InvalidVolume.ZoneMismatch', attempts: 1 });
    await h.settle(30_000);
    expect(h.ebs.calls.DescribeInstances).toBe(1);
    expect((await attachmentOf(h, 'data-1')).status.state).toBe('attached');
  });

  it('describes again once the cached description is older than the TTL', async () => {
    const h = harness({ config: { instanceCacheTtlMs: 10_000 } });
    for (const id of ['a', 'b']) await availableVolume(h, id);
    const before = h.ebs.calls.DescribeInstances ?? 0;
    await h.store.create(newAttachment('a'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('a', INSTANCE))));
    await h.clock.advance(10_000);
    await h.store.create(newAttachment('b'));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('b', INSTANCE))));
    expect(h.ebs.calls.DescribeInstances).toBe(before + 2);
  });
});

describe('executor: modify', () => {
  it('grows a volume once, then records what EC2 reports', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: AZ }, generation: 2 });
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1')), h.op('modify-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect((await volumeOf(h, 'data-1')).status.state).toBe('modifying');
    // Paced as a modification (first look after 15 s), not as a quick check.
    // The modification's first check at 15 s, sent a batching window (1 s) early.
    expect(h.queued()).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 14 }]);
    await h.settle(120_000, 5000);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status.state).toBe('available');
    expect(volume.observed?.sizeGiB).toBe(20);
    expect(volume.observedGeneration).toBe(2);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('a failed modification settles back to in-use with its message, then ModifyVolume is retried after a backoff', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: AZ }, generation: 2 });
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    h.ebs.failModification(ebsVolumeId!, 'Internal error: the modification could not be completed.');

    await h.settle(15_000);
    const failed = await volumeOf(h, 'data-1');
    expect(failed.status).toMatchObject({
      state: 'in-use',
      code: 'ModificationFailed',
      message: 'Internal error: the modification could not be completed.',
      attempts: 1,
      nextAttemptAt: expect.any(String),
    });
    expect(failed.observed?.sizeGiB).toBe(10);
    expect(failed.observedGeneration).toBe(1);
    expect(h.queued()).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: expect.any(Number) }]);

    await h.settle(120_000, 5000);
    const grown = await volumeOf(h, 'data-1');
    expect(grown.status).toMatchObject({ state: 'in-use', attempts: 0 });
    expect(grown.status.code).toBeUndefined();
    expect(grown.observed?.sizeGiB).toBe(20);
    expect(grown.observedGeneration).toBe(2);
    expect(h.ebs.calls.ModifyVolume).toBe(2);
  });

  it('a failed modification with the attempt budget spent ends in error with the EC2 message and is not retried', async () => {
    const h = harness({ config: { maxAttempts: 1 } });
    await availableVolume(h, 'data-1');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: AZ }, generation: 2 });
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    h.ebs.failModification((await volumeOf(h, 'data-1')).ebsVolumeId!, 'The volume could not be modified.');
    await h.settle(120_000, 5000);
    const volume = await volumeOf(h, 'data-1');
    expect(volume.status).toMatchObject({ state: 'error', code: 'ModificationFailed', attempts: 1 });
    expect(volume.status.message).toBe('The volume could not be modified. (gave up after 1 failed attempts)');
    expect(volume.observed?.sizeGiB).toBe(10);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(h.queued()).toEqual([]);
  });
});


const HOUR = 3_600_000;
/** EC2's window (24 hours) plus the slack the executor gives EC2's clock (5 s). */
const WINDOW_AND_SLACK_MS = 24 * HOUR + 5_000;

const iso = (ms: number) => new Date(ms).toISOString();

/** The status of an attached volume whose modification waits for EC2's limit until `retryAt`, without its `updatedAt`. */
function inUseCooldownWait(retryAt: string) {
  return {
    state: 'in-use',
    code: 'VolumeModificationRateExceeded',
    message: `EC2 allows 4 modifications per volume in any 24 hours; trying again at ${retryAt}`,
    attempts: 0,
    nextAttemptAt: retryAt,
  };
}

/** Asks for a new spec size, as a client's PATCH does (bumping the generation). */
async function growTo(h: ReturnType<typeof harness>, volumeId: string, sizeGiB: number) {
  const volume = await volumeOf(h, volumeId);
  await h.store.update<VolumeRecord>(volumeKey(volumeId), { spec: { ...volume.spec, sizeGiB }, generation: volume.generation + 1 });
}

/** The start of the last modification EC2 lists for the volume (epoch ms). */
async function lastModificationStart(h: ReturnType<typeof harness>, volumeId: string): Promise<number> {
  const [modification] = await h.ebs.describeVolumeModifications([(await volumeOf(h, volumeId)).ebsVolumeId!]);
  return modification!.startedAt!;
}

/** The modification starts the volume record holds, oldest first, as ISO times. */
async function recordedStarts(h: ReturnType<typeof harness>, volumeId: string): Promise<string[]> {
  const volume = await volumeOf(h, volumeId);
  return [...(volume.earlierModificationStarts ?? []), ...(volume.lastModificationStartedAt !== undefined ? [volume.lastModificationStartedAt] : [])];
}

/** Grows the volume to `sizeGiB` through the executor and waits until EC2 has completed it (generation bumped); its start, as EC2 lists it. */
async function grownTo(h: ReturnType<typeof harness>, volumeId: string, sizeGiB: number): Promise<number> {
  await growTo(h, volumeId, sizeGiB);
  await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey(volumeId))));
  await h.settle(400_000, 5_000);
  const volume = await volumeOf(h, volumeId);
  expect(volume).toMatchObject({ status: { attempts: 0 }, observed: { sizeGiB } });
  expect(volume.observedGeneration).toBe(volume.generation);
  return lastModificationStart(h, volumeId);
}

/**
 * An attached volume grown four times, from 10 to 50 GiB, each once the one before completed
 * (generation 5): EC2 allows no fifth modification until 24 hours after the first started. The
 * starts, as EC2 lists them. `knownStarts` false: the record then forgets them, as one whose
 * modifications were made in the console, so that EC2's refusal is how a fifth learns the wait.
 */
async function grownFourTimes(h: ReturnType<typeof harness>, volumeId: string, knownStarts = false): Promise<number[]> {
  await attachedVolume(h, volumeId);
  const starts: number[] = [];
  for (const sizeGiB of [20, 30, 40, 50]) starts.push(await grownTo(h, volumeId, sizeGiB));
  expect(await volumeOf(h, volumeId)).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 50 }, observedGeneration: 5 });
  expect(await recordedStarts(h, volumeId)).toEqual(starts.map(iso));
  if (!knownStarts) await h.store.update<VolumeRecord>(volumeKey(volumeId), { lastModificationStartedAt: null, earlierModificationStarts: null });
  return starts;
}

/** Runs the pipeline in steps of `stepMs`, then of a minute, up to (never past) the minute before `atMs`, delivering what falls due. */
async function settleUntil(h: ReturnType<typeof harness>, atMs: number, stepMs: number) {
  for (const step of [stepMs, 60_000]) await h.settle(Math.floor((atMs - 1 - h.clock.now()) / step) * step, step);
}

/**
 * data-1 grown four times and asked for a fifth: waiting for EC2's window, with one link of the
 * wait's chain of delayed messages received (in flight), as a batch item.
 */
async function waitingWithLinkInFlight(h: ReturnType<typeof harness>) {
  await grownFourTimes(h, 'data-1');
  await growTo(h, 'data-1', 60);
  await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
  const waitsUntil = Date.parse((await volumeOf(h, 'data-1')).status.nextAttemptAt!);
  await h.clock.advance(900_000);
  const [link] = h.queue.receive(10);
  expect(link!.message.dueAt).toBe(waitsUntil);
  return { waitsUntil, link: link!, linked: [{ messageId: link!.messageId, message: link!.message }] };
}

/** Counts the ModifyVolume calls EC2 refuses (any error), as they happen. */
function countModifyRefusals(h: ReturnType<typeof harness>): { refused: string[] } {
  const modify = h.ebs.modifyVolume.bind(h.ebs);
  const counter = { refused: [] as string[] };
  h.ebs.modifyVolume = async (request) => {
    try {
      await modify(request);
    } catch (error) {
      counter.refused.push((error as ProviderError).code);
      throw error;
    }
  };
  return counter;
}

/** Makes the next ModifyVolume take effect in EC2 and lose its answer (a timeout after EC2 accepted it). */
function loseNextModifyAnswer(h: ReturnType<typeof harness>) {
  const modify = h.ebs.modifyVolume.bind(h.ebs);
  h.ebs.modifyVolume = async (request) => {
    h.ebs.modifyVolume = modify;
    await modify(request);
    throw new ProviderError('transient', 'RequestTimeout', 'Request timed out');
  };
}

describe('executor: modifications one after another, each once the one before completed', () => {
  it('a second spec change made while the first modification is optimizing waits, saying so, with no ModifyVolume EC2 would refuse; it is made once EC2 reports completed', async () => {
    const h = harness();
    const refusals = countModifyRefusals(h);
    await attachedVolume(h, 'data-1');
    await growTo(h, 'data-1', 20);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    // Modified after a minute: the check sees EC2 holding 20 GiB, optimizing for 5 minutes more.
    await h.settle(90_000, 5_000);
    const [optimizing] = await h.ebs.describeVolumeModifications([(await volumeOf(h, 'data-1')).ebsVolumeId!]);
    expect(optimizing?.state).toBe('optimizing');
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use' }, observed: { sizeGiB: 20 }, observedGeneration: 2 });

    await growTo(h, 'data-1', 30);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({
      state: 'in-use',
      code: 'IncorrectModificationState',
      message: 'waiting for the modification under way (optimizing, to 20 GiB, gp3, 3000 IOPS, 125 MiB/s) to finish before modifying',
      attempts: 0,
      nextAttemptAt: expect.any(String),
    });
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    // Still optimizing on the next looks: no call; completed: the second one is made.
    await h.settle(150_000, 5_000);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    await h.settle(600_000, 5_000);
    const grown = await volumeOf(h, 'data-1');
    expect(grown).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 30 }, observedGeneration: 3 });
    expect(grown.status.code).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(2);
    expect(refusals.refused).toEqual([]);
    const [second] = await h.ebs.describeVolumeModifications([grown.ebsVolumeId!]);
    expect(second?.startedAt).toBeGreaterThanOrEqual(optimizing!.startedAt! + 360_000);
    expect(await recordedStarts(h, 'data-1')).toEqual([iso(optimizing!.startedAt!), iso(second!.startedAt!)]);
  });

  it('a second grow an hour after the first is made at once; the record keeps both starts', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const first = await grownTo(h, 'data-1', 20);
    await h.clock.advance(HOUR);
    const second = await grownTo(h, 'data-1', 30);
    expect(h.ebs.calls.ModifyVolume).toBe(2);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ lastModificationStartedAt: iso(second), earlierModificationStarts: [iso(first)] });
  });

  it('forgets starts more than 24 hours old, and keeps 3 before the latest at most', async () => {
    const h = harness();
    const starts = await grownFourTimes(h, 'data-1', true);
    // A day after the first: the first leaves EC2's window, the others stay.
    await h.clock.advance(starts[0]! + WINDOW_AND_SLACK_MS - h.clock.now());
    const fifth = await grownTo(h, 'data-1', 60);
    expect(await recordedStarts(h, 'data-1')).toEqual([...starts.slice(1), fifth].map(iso));
    // Over a day later: the others leave it too.
    await h.clock.advance(fifth + WINDOW_AND_SLACK_MS - h.clock.now());
    const sixth = await grownTo(h, 'data-1', 70);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ lastModificationStartedAt: iso(sixth) });
    expect((await volumeOf(h, 'data-1')).earlierModificationStarts).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(6);
  });

  it('a failed modification drops its own start only: the retry is made at once, and the fourth counts the three before it', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const starts = [await grownTo(h, 'data-1', 20), await grownTo(h, 'data-1', 30), await grownTo(h, 'data-1', 40)];
    await growTo(h, 'data-1', 50);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    h.ebs.failModification((await volumeOf(h, 'data-1')).ebsVolumeId!, 'The volume could not be modified.');
    await h.settle(15_000);
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'in-use', code: 'ModificationFailed', attempts: 1 });
    expect(await recordedStarts(h, 'data-1')).toEqual(starts.map(iso));

    await h.settle(400_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 50 }, observedGeneration: 5 });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    const fourth = await lastModificationStart(h, 'data-1');
    expect(await recordedStarts(h, 'data-1')).toEqual([...starts, fourth].map(iso));
    // A fifth waits for the first to leave EC2's window, with no call.
    await growTo(h, 'data-1', 60);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject(inUseCooldownWait(iso(starts[0]! + WINDOW_AND_SLACK_MS)));
    expect(h.ebs.calls.ModifyVolume).toBe(5);
  });

  it('over many spec changes never sends a ModifyVolume EC2 refuses: each once the one before completed, a fifth in 24 hours when the window allows', async () => {
    const h = harness();
    const refusals = countModifyRefusals(h);
    await attachedVolume(h, 'data-1');
    // 24 grows over two days, some while the one before is still modifying or optimizing, some while a wait is on.
    const gapsInMinutes = [1, 5, 30, 120, 240];
    for (let i = 1; i <= 24; i++) {
      await growTo(h, 'data-1', 10 + 10 * i);
      await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
      await h.settle(gapsInMinutes[i % gapsInMinutes.length]! * 60_000, 60_000);
    }
    await h.settle(2 * 24 * HOUR, 10 * 60_000);
    await h.settle(600_000, 5_000);
    const volume = await volumeOf(h, 'data-1');
    expect(volume).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 250 }, observedGeneration: 25 });
    expect(refusals.refused).toEqual([]);
    // More than one window's 4, and fewer calls than grows: those asked for during a wait or a modification went together.
    expect(h.ebs.calls.ModifyVolume).toBeGreaterThan(4);
    expect(h.ebs.calls.ModifyVolume).toBeLessThan(24);
  });

});

describe("executor: modify beyond EC2's limit (4 modifications per volume in any 24 hours)", () => {
  it("refused for modifications the record does not know (made in the console): waits without using attempts from the latest start EC2 names, says why and until when, and grows then", async () => {
    const h = harness();
    const starts = await grownFourTimes(h, 'data-1');
    await h.clock.advance(HOUR);
    await growTo(h, 'data-1', 60);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));

    // EC2's message is not read: every one it counts started by the latest it lists, so a day from that is certainly enough.
    const retryAt = iso(starts[3]! + WINDOW_AND_SLACK_MS);
    const waiting = await volumeOf(h, 'data-1');
    expect(waiting.status).toEqual({ ...inUseCooldownWait(retryAt), updatedAt: iso(h.clock.now()) });
    // Kept on the record, as 4 started by then: the wait no longer depends on the status.
    expect(await recordedStarts(h, 'data-1')).toEqual(Array(4).fill(iso(starts[3]!)));
    // Longer than one message's delay: chained on through dueAt.
    expect(h.queued()).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: 900 }]);
    expect(h.queue.pending()[0]!.message.dueAt).toBe(Date.parse(retryAt));
    expect(h.ebs.calls.ModifyVolume).toBe(5);

    // Far past the minutes an attempt budget lasts: still waiting, nothing called, no error.
    await h.settle(HOUR, 60_000);
    expect((await volumeOf(h, 'data-1')).status).toEqual(waiting.status);
    expect(h.ebs.calls.ModifyVolume).toBe(5);

    await h.clock.advance(Date.parse(retryAt) - h.clock.now() - 60_000);
    await h.settle(600_000, 5_000);
    const grown = await volumeOf(h, 'data-1');
    expect(grown).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(grown.status.code).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(6);
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ status: { state: 'attached' } });
  });

  it('after its own four, knows the wait from the record: no ModifyVolume, until 24 hours after the first started, and grows then', async () => {
    const h = harness();
    const starts = await grownFourTimes(h, 'data-1', true);
    await h.clock.advance(HOUR);
    await growTo(h, 'data-1', 60);
    const key = volumeKey('data-1');
    await h.executor.run(h.batchOf(h.op('modify-volume', key)));

    const retryAt = iso(starts[0]! + WINDOW_AND_SLACK_MS);
    const waiting = await volumeOf(h, 'data-1');
    expect(waiting.status).toEqual({ ...inUseCooldownWait(retryAt), updatedAt: iso(h.clock.now()) });
    expect(h.queued()).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: 900 }]);
    expect(h.queue.pending()[0]!.message.dueAt).toBe(Date.parse(retryAt));
    expect(h.ebs.calls.ModifyVolume).toBe(4);

    // Duplicates once the status says so: nothing written, no message of their own.
    await h.executor.run(h.batchOf(h.op('modify-volume', key), h.op('modify-volume', key)));
    expect((await volumeOf(h, 'data-1')).version).toBe(waiting.version);
    expect(h.queued()).toHaveLength(1);

    await settleUntil(h, Date.parse(retryAt), 10 * 60_000);
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    const fifth = await lastModificationStart(h, 'data-1');
    expect(fifth).toBeGreaterThanOrEqual(Date.parse(retryAt));
    // The first no longer counts; the sixth waits for the second.
    expect(await recordedStarts(h, 'data-1')).toEqual([...starts.slice(1), fifth].map(iso));
  });

  it('duplicate and late messages during the wait call nothing; a check shows the wait again; the volume grows once when the window allows', async () => {
    const h = harness();
    const starts = await grownFourTimes(h, 'data-1');
    await growTo(h, 'data-1', 60);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const waiting = await volumeOf(h, 'data-1');
    const retryAtMs = starts[3]! + WINDOW_AND_SLACK_MS;

    await h.clock.advance(HOUR);
    const key = volumeKey('data-1');
    await h.executor.run(h.batchOf(h.op('modify-volume', key), h.op('modify-volume', key), h.op('check-volume', key)));
    expect((await volumeOf(h, 'data-1')).version).toBe(waiting.version);
    // Only the wait's own message is still on its way, none of the late ones.
    expect(h.queued().map(({ op, key }) => ({ op, key }))).toEqual([{ op: 'modify-volume', key: 'data-1' }]);

    // A check writes what EC2 reports over the wait; the record still says it waits, so the status shows it again.
    await h.executor.run(h.batchOf(h.op('check-volume', key), h.op('modify-volume', key)));
    await h.settle(10_000);
    const again = await volumeOf(h, 'data-1');
    expect(again.status).toMatchObject({ state: 'in-use', code: 'VolumeModificationRateExceeded', nextAttemptAt: iso(retryAtMs) });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    expect(new Set(h.queue.pending().map((p) => `${p.message.op} ${p.message.dueAt}`))).toEqual(new Set([`modify-volume ${retryAtMs}`]));

    await h.settle(24 * HOUR, 10 * 60_000);
    const grown = await volumeOf(h, 'data-1');
    expect(grown).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    // The four grows, the refusal that started the wait, and the grow after it.
    expect(h.ebs.calls.ModifyVolume).toBe(6);
    const [modification] = await h.ebs.describeVolumeModifications([again.ebsVolumeId!]);
    expect(modification?.targetSizeGiB).toBe(60);
    expect(modification?.startedAt).toBeGreaterThanOrEqual(retryAtMs);

    // A modify message delivered late, once it is all done: nothing to call, nothing to write.
    await h.executor.run(h.batchOf(h.op('modify-volume', key)));
    expect(h.ebs.calls.ModifyVolume).toBe(6);
    expect((await volumeOf(h, 'data-1')).version).toBe(grown.version);
  });

  it.each([
    ['with a late modify message', 'modify-volume' as const, false],
    ['behind a check', 'check-volume' as const, true],
  ])("the wait's own message, delivered in one batch %s, is sent on: the volume still grows when the window allows", async (_, other, otherFirst) => {
    const h = harness();
    // One link of the wait's chain of delayed messages and another message of the volume, in one batch.
    const { waitsUntil, link, linked } = await waitingWithLinkInFlight(h);
    const others = h.batchOf(h.op(other, volumeKey('data-1')));
    await h.executor.run(otherFirst ? [...others, ...linked] : [...linked, ...others]);
    h.queue.delete(link.receiptHandle);
    // A check writes over the wait: the message that shows it again brings the modification back then.
    await h.settle(10_000);
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    expect(h.queue.pending().map((p) => ({ op: p.message.op, dueAt: p.message.dueAt }))).toEqual([{ op: 'modify-volume', dueAt: waitsUntil }]);
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ code: 'VolumeModificationRateExceeded', nextAttemptAt: iso(waitsUntil) });

    await h.clock.advance(waitsUntil - h.clock.now() - 60_000);
    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(6);
  });

  it.each([
    ['behind a check of a volume another invocation holds', 'claimed'],
    ['with a tag change deferred for want of a CreateTags token', 'deferred'],
  ] as const)("the wait's own message, delivered in one batch %s, comes back when due: the volume still grows when the window allows", async (_, blocked) => {
    const tagBudget = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateTags: { burst: 1, ratePerSecond: 0.5 } };
    const h = harness({ config: { rateBudgets: tagBudget } });
    const { waitsUntil, link, linked } = await waitingWithLinkInFlight(h);

    const retag = async (team: string) => {
      const volume = await volumeOf(h, 'data-1');
      await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...volume.spec, tags: { team } }, generation: volume.generation + 1 });
    };
    let other: OperationKind = 'check-volume';
    if (blocked === 'claimed') {
      // Another invocation is working on the volume: the check looks again when its claim ends.
      expect((await h.store.claim(volumeKey('data-1'), 'other-owner', h.clock.now(), 180_000)).ok).toBe(true);
    } else {
      // The one CreateTags token goes to a first tag change; the second waits two seconds for the next.
      await retag('a');
      await h.executor.run(h.batchOf(h.op('tag-volume', volumeKey('data-1'))));
      await retag('b');
      other = 'tag-volume';
    }
    await h.executor.run([...h.batchOf(h.op(other, volumeKey('data-1'))), ...linked]);
    h.queue.delete(link.receiptHandle);
    expect(h.queue.pending().map((p) => p.message)).toContainEqual(expect.objectContaining({ op: 'modify-volume', dueAt: waitsUntil }));

    await h.settle(600_000, 1_000);
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    await h.clock.advance(waitsUntil - h.clock.now() - 60_000);
    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 } });
    expect(h.ebs.calls.ModifyVolume).toBe(6);
  });

  it("the wait is no part of the operation's age: a failure after it is an ordinary retry, not a terminal error", async () => {
    const h = harness({ config: { maxOperationAgeMs: HOUR } });
    const starts = await grownFourTimes(h, 'data-1');
    await growTo(h, 'data-1', 60);
    h.ebs.failNext('ModifyVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'in-use', code: 'InternalError', attempts: 1 });

    await h.settle(10_000);
    const waiting = await volumeOf(h, 'data-1');
    expect(waiting.status).toMatchObject({ state: 'in-use', code: 'VolumeModificationRateExceeded', attempts: 1 });
    expect(waiting.status.operationStartedAt).toBeUndefined();

    await h.clock.advance(starts[3]! + WINDOW_AND_SLACK_MS - h.clock.now() - 1_000);
    h.ebs.failNext('ModifyVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await h.settle(2_000);
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'in-use', code: 'InternalError', attempts: 2 });

    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
  });

  it('a wait the client made pointless (the size put back to what EC2 holds) is cleared at once, with no EC2 call; its late message changes nothing', async () => {
    const h = harness();
    await grownFourTimes(h, 'data-1');
    await growTo(h, 'data-1', 60);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ code: 'VolumeModificationRateExceeded', nextAttemptAt: expect.any(String) });
    h.changes.splice(0);
    const calls = { ...h.ebs.calls };

    await growTo(h, 'data-1', 50);
    const change = [...h.changes];
    await h.watch();
    const settled = await volumeOf(h, 'data-1');
    expect(settled).toMatchObject({ generation: 7, observedGeneration: 7, status: { state: 'in-use', attempts: 0 } });
    expect(settled.status).toEqual({ state: 'in-use', attempts: 0, updatedAt: iso(h.clock.now()) });

    // A duplicate of the change, and the wait's own message when the window allows: nothing to call or write.
    await h.watcher.handle(change);
    await h.settle(25 * HOUR, 10 * 60_000);
    expect(h.ebs.calls).toEqual(calls);
    expect((await volumeOf(h, 'data-1')).version).toBe(settled.version);
  });

  it('a late message finds the wait pointless before the watcher does: the executor clears it, with no EC2 call', async () => {
    const h = harness();
    await grownFourTimes(h, 'data-1');
    await growTo(h, 'data-1', 60);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const calls = { ...h.ebs.calls };
    await growTo(h, 'data-1', 50);
    h.changes.splice(0); // the stream has not delivered the change yet
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect(await volumeOf(h, 'data-1')).toMatchObject({ observedGeneration: 7, status: { state: 'in-use', attempts: 0 } });
    expect((await volumeOf(h, 'data-1')).status.code).toBeUndefined();
    expect((await volumeOf(h, 'data-1')).status.nextAttemptAt).toBeUndefined();
    expect(h.ebs.calls).toEqual(calls);
  });

  it('the wait keeps the record in line with EC2: a volume detached meanwhile waits as available', async () => {
    const h = harness();
    await grownFourTimes(h, 'data-1');
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    await h.clock.advance(10_000);
    await growTo(h, 'data-1', 60);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect(await volumeOf(h, 'data-1')).toMatchObject({
      status: { state: 'available', code: 'VolumeModificationRateExceeded', attempts: 0 },
      observed: { sizeGiB: 50 },
      observedGeneration: 5,
    });
  });

  it('a volume made dying meanwhile drops the wait: its check writes what EC2 reports, and it is deleted at once', async () => {
    const h = harness();
    await grownFourTimes(h, 'data-1');
    await growTo(h, 'data-1', 60);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'in-use', code: 'VolumeModificationRateExceeded' });
    // Its attachment already gone (detached, its record removed) when the client deletes the volume.
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: INSTANCE });
    await h.store.remove(attachmentKey('data-1'));
    await h.clock.advance(10_000);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });

    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toEqual({ state: 'available', attempts: 0, updatedAt: iso(h.clock.now()) });
    await h.settle(10_000);
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volume(ebsVolumeId!)).toBeUndefined();
  });

  it('refused with no modification EC2 lists: the record counts the wait from the refusal; a check keeps showing the wait in the one write it makes; one ModifyVolume when it ends', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    await growTo(h, 'data-1', 20);
    h.ebs.failNext('ModifyVolume', new ProviderError('modification-cooldown', 'VolumeModificationRateExceeded', "You've reached the maximum modification rate per volume limit."));
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const refusedAt = h.clock.now();
    const retryAt = iso(refusedAt + WINDOW_AND_SLACK_MS);
    const waiting = await volumeOf(h, 'data-1');
    expect(await recordedStarts(h, 'data-1')).toEqual(Array(4).fill(iso(refusedAt)));
    expect(waiting.status).toMatchObject(inUseCooldownWait(retryAt));
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    // Detached outside meanwhile: a check writes what EC2 reports and, in the same write, the wait the record still says it has.
    await h.clock.advance(HOUR);
    await h.ebs.detachVolume({ ebsVolumeId: waiting.ebsVolumeId!, instanceId: INSTANCE });
    await h.clock.advance(60_000);
    const queued = h.queued();
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const checked = await volumeOf(h, 'data-1');
    expect(checked.status).toMatchObject({ state: 'available', code: 'VolumeModificationRateExceeded', attempts: 0, nextAttemptAt: retryAt });
    expect(checked.version).toBe(waiting.version + 1);
    expect(h.queued()).toEqual(queued);
    // Nothing asks EC2 before the wait ends.
    await settleUntil(h, Date.parse(retryAt), 10 * 60_000);
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20 }, observedGeneration: 2 });
    expect(h.ebs.calls.ModifyVolume).toBe(2);
  });

  it('a record whose wait only its status shows (no starts kept): one ModifyVolume EC2 refuses, then the record holds the start EC2 names', async () => {
    const h = harness();
    const starts = await grownFourTimes(h, 'data-1');
    const retryAt = iso(starts[3]! + WINDOW_AND_SLACK_MS);
    await growTo(h, 'data-1', 60);
    const status = (await volumeOf(h, 'data-1')).status;
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      status: { ...status, code: 'VolumeModificationRateExceeded', message: 'EC2 allows 4 modifications per volume in any 24 hours', nextAttemptAt: iso(starts[0]! + WINDOW_AND_SLACK_MS) },
    });
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ lastModificationStartedAt: iso(starts[3]!), status: { code: 'VolumeModificationRateExceeded', nextAttemptAt: retryAt } });

    await settleUntil(h, Date.parse(retryAt), 10 * 60_000);
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(6);
  });

  it('refused although the start EC2 names is over 24 hours old (its clock or count differs from ours): counts from the refusal', async () => {
    const h = harness();
    await grownFourTimes(h, 'data-1');
    await h.clock.advance(25 * HOUR);
    await growTo(h, 'data-1', 60);
    h.ebs.failNext('ModifyVolume', new ProviderError('modification-cooldown', 'VolumeModificationRateExceeded', "You've reached the maximum modification rate per volume limit."));
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const refusedAt = h.clock.now();
    expect(await recordedStarts(h, 'data-1')).toEqual(Array(4).fill(iso(refusedAt)));
    await settleUntil(h, refusedAt + WINDOW_AND_SLACK_MS, 10 * 60_000);
    expect(h.ebs.calls.ModifyVolume).toBe(5);
    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(6);
  });

  it('refused while the record knows a start later than the one EC2 lists (listed late): waits a day from the later one', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const listed = await grownTo(h, 'data-1', 20);
    // The record knows one EC2 does not list yet, an hour after the one it lists.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { lastModificationStartedAt: iso(listed + HOUR), earlierModificationStarts: [iso(listed)] });
    await h.clock.advance(2 * HOUR);
    await growTo(h, 'data-1', 30);
    h.ebs.failNext('ModifyVolume', new ProviderError('modification-cooldown', 'VolumeModificationRateExceeded', "You've reached the maximum modification rate per volume limit."));
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect(await recordedStarts(h, 'data-1')).toEqual(Array(4).fill(iso(listed + HOUR)));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject(inUseCooldownWait(iso(listed + HOUR + WINDOW_AND_SLACK_MS)));
  });

  it('modification starts in the future written straight into the table hold a modification back 24 hours at most: rewritten to now once, with a warning', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    await grownFourTimes(h, 'data-1', true);
    await h.clock.advance(25 * HOUR);
    const inAMonth = iso(h.clock.now() + 30 * 24 * HOUR);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { lastModificationStartedAt: inAMonth, earlierModificationStarts: [inAMonth, inAMonth, inAMonth] });
    await growTo(h, 'data-1', 60);
    await h.watch();
    await h.settle(10_000);
    const rewrittenAt = h.clock.now() - 10_000;
    const waiting = await volumeOf(h, 'data-1');
    expect(await recordedStarts(h, 'data-1')).toEqual(Array(4).fill(iso(rewrittenAt)));
    const endsAt = iso(rewrittenAt + WINDOW_AND_SLACK_MS);
    expect(waiting.status).toMatchObject({ state: 'in-use', code: 'VolumeModificationRateExceeded', nextAttemptAt: endsAt });
    expect(log.entries.filter((entry) => entry.level === 'warn' && entry.message === FUTURE_MODIFICATION_START_LOG)).toHaveLength(1);

    // A fixed end: later passes plan the same wait, and nothing asks EC2 before it.
    await h.watch();
    await settleUntil(h, Date.parse(endsAt), 10 * 60_000);
    expect((await volumeOf(h, 'data-1')).status.nextAttemptAt).toBe(endsAt);
    expect(h.ebs.calls.ModifyVolume).toBe(4);
    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 60 }, observedGeneration: 6 });
    expect(h.ebs.calls.ModifyVolume).toBe(5);
  });
});

describe('executor: a modification already under way', () => {
  it('after a lost ModifyVolume answer, follows the modification EC2 is making toward the spec as its own, with no new call', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    await growTo(h, 'data-1', 20);
    loseNextModifyAnswer(h);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const started = await lastModificationStart(h, 'data-1');
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'available', code: 'RequestTimeout', attempts: 1 });
    expect(h.queued()).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: 2 }]);

    await h.clock.advance(2_000);
    await h.drain();
    const adopted = await volumeOf(h, 'data-1');
    expect(adopted.status).toEqual({
      state: 'modifying',
      message: 'modifying (EC2 had already accepted this change)',
      attempts: 0,
      updatedAt: new Date(h.clock.now()).toISOString(),
      operationStartedAt: new Date(started).toISOString(),
    });
    // It counts toward EC2's limit from when EC2 started it.
    expect(adopted.lastModificationStartedAt).toBe(new Date(started).toISOString());
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    // Checked like a modification it started: first look in 15 s, sent a batching window (1 s) early.
    expect(h.queued()).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 14 }]);

    // Duplicate and late modify messages find it modifying: no call.
    const key = volumeKey('data-1');
    await h.executor.run(h.batchOf(h.op('modify-volume', key), h.op('modify-volume', key)));
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    await h.settle(400_000, 5_000);
    const grown = await volumeOf(h, 'data-1');
    expect(grown).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20 }, observedGeneration: 2 });
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    // The lost call's own retry message, delivered late: nothing to call, nothing to write.
    await h.executor.run(h.batchOf(h.op('modify-volume', key)));
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect((await volumeOf(h, 'data-1')).version).toBe(grown.version);
  });

  it('waits without using attempts for a modification toward another spec, then modifies once EC2 allows it', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    // Someone else grows the volume to 20 GiB; the client asks for 30.
    await h.ebs.modifyVolume({ ebsVolumeId: volume.ebsVolumeId!, sizeGiB: 20 });
    const outside = h.clock.now();
    await growTo(h, 'data-1', 30);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const waiting = await volumeOf(h, 'data-1');
    expect(waiting.status).toMatchObject({
      state: 'available',
      code: 'IncorrectModificationState',
      message: 'waiting for the modification under way (modifying, to 20 GiB, gp3, 3000 IOPS, 125 MiB/s) to finish before modifying',
      attempts: 0,
      nextAttemptAt: new Date(h.clock.now() + 15_000).toISOString(),
    });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect(h.queued()).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: 15 }]);

    // A duplicate looks again: still under way, still no call and no attempt.
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect((await volumeOf(h, 'data-1')).status.attempts).toBe(0);

    // Far longer than an attempt budget lasts: done at 6 minutes, and the next one made at once.
    await h.settle(600_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 30 }, observedGeneration: 2 });
    expect(h.ebs.calls.ModifyVolume).toBe(2);
    const [made] = await h.ebs.describeVolumeModifications([volume.ebsVolumeId!]);
    expect(made?.startedAt).toBeGreaterThanOrEqual(outside + 360_000);
    expect((await volumeOf(h, 'data-1')).earlierModificationStarts).toEqual([iso(outside)]);
  });

  it('refused as under way before DescribeVolumesModifications lists it: waits without attempts, then follows it', async () => {
    const h = harness();
    h.ebs.modificationListingDelayMs = 30_000;
    const volume = await availableVolume(h, 'data-1');
    // A ModifyVolume EC2 accepted whose answer never reached the record (the status write was lost).
    await h.ebs.modifyVolume({ ebsVolumeId: volume.ebsVolumeId!, sizeGiB: 20 });
    await growTo(h, 'data-1', 20);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({
      state: 'available',
      code: 'IncorrectModificationState',
      message: "waiting for the modification under way to finish: Cannot modify volume vol-00000000000000001 as it is in 'modifying' state. Try again later.",
      attempts: 0,
    });
    expect(h.queued()).toEqual([{ op: 'modify-volume', key: 'data-1', delaySeconds: 15 }]);

    await h.settle(30_000);
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'modifying', attempts: 0 });
    await h.settle(400_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20 }, observedGeneration: 2 });
    // The accepted one and two refusals (at 0 and 15 s); none after it was listed.
    expect(h.ebs.calls.ModifyVolume).toBe(3);
  });
});

describe('executor: checking a modification EC2 does not list yet', () => {
  it('a check before EC2 lists the new modification keeps waiting for it, with no new ModifyVolume', async () => {
    const h = harness();
    h.ebs.modificationListingDelayMs = 30_000;
    await availableVolume(h, 'data-1');
    await growTo(h, 'data-1', 20);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const { ebsVolumeId } = await volumeOf(h, 'data-1');
    await h.settle(15_000);
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'modifying', message: `waiting for the modification of ${ebsVolumeId} to appear`, attempts: 0 });
    expect(h.ebs.calls.ModifyVolume).toBe(1);

    await h.settle(400_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20 }, observedGeneration: 2 });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });

  it('the modification before it, listed meanwhile, is not taken for the new one', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    await grownTo(h, 'data-1', 20);
    await h.clock.advance(HOUR);
    h.ebs.modificationListingDelayMs = 30_000;
    await growTo(h, 'data-1', 30);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const calls = h.ebs.calls.ModifyVolume;
    await h.settle(15_000);
    const { ebsVolumeId, status } = await volumeOf(h, 'data-1');
    expect((await h.ebs.describeVolumeModifications([ebsVolumeId!]))[0]).toMatchObject({ state: 'completed', targetSizeGiB: 20 });
    expect(status).toMatchObject({ state: 'modifying', message: `waiting for the modification of ${ebsVolumeId} to appear` });

    await h.settle(400_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'in-use', attempts: 0 }, observed: { sizeGiB: 30 }, observedGeneration: 3 });
    expect(h.ebs.calls.ModifyVolume).toBe(calls);
  });

  it('after the grace period a modification still not listed counts as done: the record settles from DescribeVolumes', async () => {
    const h = harness();
    h.ebs.modificationListingDelayMs = 3_600_000;
    await availableVolume(h, 'data-1');
    await growTo(h, 'data-1', 20);
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const started = h.clock.now();
    await h.settle(DEFAULT_ENGINE_CONFIG.describeGraceMs - 10_000, 5_000);
    expect((await volumeOf(h, 'data-1')).status.state).toBe('modifying');
    await h.settle(60_000, 5_000);
    expect(await volumeOf(h, 'data-1')).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20 }, observedGeneration: 2 });
    expect(h.clock.now() - started).toBeLessThan(DEFAULT_ENGINE_CONFIG.describeGraceMs + 60_000);
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });
});

describe('executor: more of what EC2 and the records can do', () => {
  it('acts on no invalid record, even with a message for it', async () => {
    const h = harness();
    h.store.putRaw({ ...newVolume('data-1'), spec: { sizeGiB: 0, volumeType: 'gp3', availabilityZone: AZ } });
    const result = await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect(result.failedMessageIds).toEqual([]);
    expect(h.ebs.calls.CreateVolume).toBe(0);
  });

  it('leaves an attachment alone while its volume record is invalid: not taken for a removed volume record, nothing detached', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    await attachedVolume(h, 'data-1');
    const volume = await volumeOf(h, 'data-1');
    // The volume record made invalid straight in the table.
    h.store.putRaw({ ...volume, spec: { ...volume.spec, sizeGiB: 0 } });
    const attached = await attachmentOf(h, 'data-1');
    await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
    expect(await attachmentOf(h, 'data-1')).toEqual(attached);

    // Dying: no detach by tags while the volume record cannot be read.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    const dying = await attachmentOf(h, 'data-1');
    await h.executor.run(h.batchOf(h.op('detach', attachmentKey('data-1'))));
    expect(await attachmentOf(h, 'data-1')).toEqual(dying);
    expect(h.ebs.calls.DetachVolume).toBe(0);
    expect(log.entries.filter((entry) => entry.level === 'warn').map((entry) => [entry.message, entry.attributes?.key])).toContainEqual([
      'volume record invalid; its attachment is left as it is until the record is put right',
      'attachment/data-1/' + INSTANCE,
    ]);
  });

  it('an answer of an unexpected shape fails only its own message: the batch\'s other work is done, the claim let go, the error logged', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newVolume('data-2'));
    const provider = providerOver(h.ebs, {
      createVolume: async (request) => {
        const volume = await h.ebs.createVolume(request);
        return (request.tags[OWNERSHIP_TAGS.record] === 'data-1' ? undefined : volume) as unknown as ProviderVolume;
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log, config: { rateWaitMaxMs: 0 } });
    const batch = h.batchOf(h.op('create-volume', volumeKey('data-1')), h.op('create-volume', volumeKey('data-2')));
    const result = await executor.run(batch);
    expect(result.failedMessageIds).toEqual([batch[0]!.messageId]);
    expect((await volumeOf(h, 'data-2')).status.state).toBe('creating');
    const first = await volumeOf(h, 'data-1');
    expect(first.claim).toBeUndefined();
    expect(log.entries.filter((entry) => entry.level === 'error').map((entry) => [entry.message, entry.attributes?.key])).toEqual([['operation step failed', 'volume/data-1']]);
  });

  it('a step that throws while it is prepared fails only its own message: the batch\'s other work is done, the error logged', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    const first = await availableVolume(h, 'data-1');
    await availableVolume(h, 'data-2');
    for (const volumeId of ['data-1', 'data-2']) {
      const volume = await volumeOf(h, volumeId);
      await h.store.update<VolumeRecord>(volumeKey(volumeId), { spec: { ...volume.spec, tags: { team: 'b' } }, generation: volume.generation + 1 });
    }
    // DescribeVolumes answers data-1's volume without its tags: preparing its tag change throws.
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((volume) => (volume.ebsVolumeId === first.ebsVolumeId ? ({ ...volume, tags: undefined } as unknown as ProviderVolume) : volume)),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log, config: { rateWaitMaxMs: 0 } });
    const batch = h.batchOf(h.op('tag-volume', volumeKey('data-1')), h.op('tag-volume', volumeKey('data-2')));
    const result = await executor.run(batch);
    expect(result.failedMessageIds).toEqual([batch[0]!.messageId]);
    expect((await volumeOf(h, 'data-2')).observed?.tags).toEqual({ team: 'b' });
    expect((await volumeOf(h, 'data-1')).claim).toBeUndefined();
    expect(h.ebs.calls.CreateTags).toBe(1);
    expect(log.entries.filter((entry) => entry.level === 'error').map((entry) => [entry.message, entry.attributes?.key])).toEqual([['operation step failed', 'volume/data-1']]);
  });

  it('a long DescribeVolumes outage leaves a healthy volume at rest as it is: its looks count no attempt, so it never ends in error', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    const before = await volumeOf(h, 'data-1');
    expect(before.status.state).toBe('in-use');
    let failing = true;
    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) => {
        if (failing) throw new ProviderError('transient', 'InternalError', 'An internal error has occurred');
        return h.ebs.describeVolumes(ids);
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { ownerTagValue: 'ebs-provisioner' } });
    const drain = async () => {
      for (let round = 0; round < 20; round++) {
        const received = h.queue.receive(100);
        if (received.length === 0) return;
        const { failedMessageIds } = await executor.run(received.map(({ messageId, message }) => ({ messageId, message })));
        for (const { messageId, receiptHandle } of received) if (!failedMessageIds.includes(messageId)) h.queue.delete(receiptHandle);
      }
    };
    // A look during the outage (an attachment's change, a reconciler sync), then 90 minutes of reconciler passes.
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect(await volumeOf(h, 'data-1')).toEqual(before);
    for (let minute = 0; minute < 90; minute++) {
      if (minute % 5 === 0) await reconciler.run();
      await drain();
      await h.clock.advance(60_000);
    }
    failing = false;
    for (let minute = 0; minute < 30; minute++) {
      if (minute % 5 === 0) await reconciler.run();
      await drain();
      await h.clock.advance(60_000);
    }
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'in-use', attempts: 0 });
    expect((await volumeOf(h, 'data-1')).status.code).toBeUndefined();
  });

  it('a volume deleted behind our back goes to error with the EC2 code', async () => {
    const h = harness();
    const volume = await availableVolume(h, 'data-1');
    h.ebs.deleteBehindBack(volume.ebsVolumeId!);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h, 'data-1')).status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
  });

  it('a volume EC2 is deleting, deleted outside, is taken for gone, not for available', async () => {
    const h = harness({ ebsTimings: { delete: 10 * 60_000 } });
    const volume = await availableVolume(h, 'data-1');
    await h.ebs.deleteVolume(volume.ebsVolumeId!);
    expect(h.ebs.volume(volume.ebsVolumeId!)?.state).toBe('deleting');
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const checked = await volumeOf(h, 'data-1');
    expect(checked.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
    expect(checked.ebsVolumeId).toBeUndefined();
  });

  it('a throttled DescribeVolumes holds every check back without using attempts', async () => {
    const h = harness();
    for (const id of ['a', 'b']) await h.store.create(newVolume(id));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('a')), h.op('create-volume', volumeKey('b'))));
    h.ebs.failNext('DescribeVolumes', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    await h.clock.advance(5000);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('a')), h.op('check-volume', volumeKey('b'))));
    for (const id of ['a', 'b']) expect((await volumeOf(h, id)).status).toMatchObject({ state: 'creating', code: 'RequestLimitExceeded', attempts: 0 });
    await h.settle(30_000);
    for (const id of ['a', 'b']) expect((await volumeOf(h, id)).status).toMatchObject({ state: 'available', attempts: 0 });
  });

  it('a single-attach volume attached to another instance outside the system while its record says available: one AttachVolume, then the attach waits for it with the volume record in use, and attaches once it is detached there', async () => {
    const h = harness();
    const { ebsVolumeId } = await availableVolume(h, 'data-1');
    await h.ebs.attachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: OTHER_INSTANCE, device: '/dev/sdz' });
    await h.settle(5000);
    expect((await volumeOf(h, 'data-1')).status.state).toBe('available');
    const before = h.ebs.calls.AttachVolume;
    await h.store.create(newAttachment('data-1'));
    h.changes.length = 0;
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    for (let i = 0; i < 10; i++) {
      await h.watch();
      await h.settle(30_000, 2000);
    }
    expect(h.ebs.calls.AttachVolume - before).toBe(1);
    const waiting = await attachmentOf(h, 'data-1');
    expect(waiting.status).toMatchObject({ state: 'pending', attempts: 0, message: expect.stringMatching(/detached from its other instance/) });
    expect(waiting.status.nextAttemptAt).toBeUndefined();
    expect(waiting.device).toBeUndefined();
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');

    // Detached there: the reconciler finds the volume available, which releases the attach.
    await h.ebs.detachVolume({ ebsVolumeId: ebsVolumeId!, instanceId: OTHER_INSTANCE });
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
    await h.settle(10_000);
    await reconciler.run();
    for (let i = 0; i < 4; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ device: '/dev/sdf', status: { state: 'attached', attempts: 0 } });
    expect(h.ebs.calls.AttachVolume - before).toBe(2);
  });

  it('a check right after the attach that EC2 describes late, listing only an attachment to another instance that is detached: the attach is still under way, not waiting for that instance', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    let late = false;
    // EC2 still lists a finished detach from another instance, and (lagging) not yet the attach here.
    const gone = { instanceId: OTHER_INSTANCE, device: '/dev/sdz', state: 'detached' as const };
    const executor = executorDescribing(h, (volume) => ({ ...volume, attachments: [...(late ? [] : volume.attachments), gone] }));
    await h.store.create(newAttachment('data-1'));
    h.changes.length = 0;
    await executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    late = true;
    await runFor(h, executor, 5000);
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ device: '/dev/sdf', status: { state: 'attaching', attempts: 0 } });
    late = false;
    await runFor(h, executor, 60_000);
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ device: '/dev/sdf', status: { state: 'attached' } });
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('a check right after the attach that EC2 describes late, the volume still attached to another instance: the attach waits, looks once more, and finds it attached here', async () => {
    const h = harness();
    await availableVolume(h, 'data-1');
    let late = false;
    // A describe that lags: the volume still attached to the other instance, not yet to this one.
    const executor = executorDescribing(h, (volume) =>
      late ? { ...volume, state: 'in-use' as const, attachments: [{ instanceId: OTHER_INSTANCE, device: '/dev/sdz', state: 'attached' as const }] } : volume,
    );
    await h.store.create(newAttachment('data-1'));
    h.changes.length = 0;
    await executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
    late = true;
    await runFor(h, executor, 5000);
    expect((await attachmentOf(h, 'data-1')).status).toMatchObject({ state: 'pending', message: expect.stringMatching(/detached from its other instance/) });
    late = false;
    await runFor(h, executor, 3 * 60_000);
    expect(await attachmentOf(h, 'data-1')).toMatchObject({ device: '/dev/sdf', status: { state: 'attached' } });
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');
    expect(h.ebs.calls.AttachVolume).toBe(1);
  });

  it('two attachments of a single-attach volume written at once (two API requests racing): one attaches, the other waits for it with no further AttachVolume, and attaches once the first is deleted', async () => {
    const h = harness();
    const { ebsVolumeId } = await availableVolume(h, 'data-1');
    h.changes.length = 0;
    await h.store.create(newAttachment('data-1'));
    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    for (let i = 0; i < 10; i++) {
      await h.watch();
      await h.settle(30_000, 2000);
    }
    const attached = h.ebs.volume(ebsVolumeId!)?.attachments ?? [];
    expect(attached).toHaveLength(1);
    const winner = attached[0]!.instanceId;
    const loser = winner === INSTANCE ? OTHER_INSTANCE : INSTANCE;
    expect((await attachmentOf(h, 'data-1', winner)).status).toMatchObject({ state: 'attached', attempts: 0 });
    const waiting = await attachmentOf(h, 'data-1', loser);
    expect(waiting.status).toMatchObject({ state: 'pending', attempts: 0, message: 'waiting for volume data-1 to be detached from its other instance' });
    expect(waiting.status.code).toBeUndefined();
    expect(waiting.status.nextAttemptAt).toBeUndefined();
    expect(waiting.device).toBeUndefined();
    // EC2 refused the loser's one AttachVolume; nothing asks again while the volume is in use.
    expect(h.ebs.calls.AttachVolume).toBe(2);
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
    for (let i = 0; i < 4; i++) {
      await reconciler.run();
      await h.watch();
      await h.settle(10 * 60_000, 10_000);
    }
    expect(h.ebs.calls.AttachVolume).toBe(2);
    expect((await attachmentOf(h, 'data-1', loser)).status).toMatchObject({ state: 'pending', message: expect.stringMatching(/detached from its other instance/) });

    // The first is deleted: once it is detached, the volume is available and the other attaches.
    await h.store.update<AttachmentRecord>(attachmentKey('data-1', winner), { life: 'dying' });
    for (let i = 0; i < 6; i++) {
      await h.watch();
      await h.settle(10_000);
    }
    expect(await h.store.get(attachmentKey('data-1', winner))).toBeUndefined();
    expect((await attachmentOf(h, 'data-1', loser)).status).toMatchObject({ state: 'attached', attempts: 0 });
    expect(h.ebs.volume(ebsVolumeId!)?.attachments.map((a) => a.instanceId)).toEqual([loser]);
    expect(h.ebs.calls.AttachVolume).toBe(3);
  });

  it('a single-attach volume waits for its other attachment to detach, then moves over', async () => {
    const h = harness();
    await attachedVolume(h, 'data-1');
    expect((await volumeOf(h, 'data-1')).status.state).toBe('in-use');

    await h.store.create(newAttachment('data-1', { instanceId: OTHER_INSTANCE }));
    await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1', OTHER_INSTANCE))));
    expect((await attachmentOf(h, 'data-1', OTHER_INSTANCE)).status).toMatchObject({
      state: 'pending',
      message: expect.stringMatching(/detached from its other instance/),
    });
    expect(h.ebs.calls.AttachVolume).toBe(1);

    // The first attachment goes; the volume becomes available and the stream releases the waiter.
    h.changes.length = 0;
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    for (let i = 0; i < 6; i++) {
      await h.watch();
      await h.settle(5000);
    }
    expect(await h.store.get(attachmentKey('data-1'))).toBeUndefined();
    const moved = await attachmentOf(h, 'data-1', OTHER_INSTANCE);
    expect(moved.status.state).toBe('attached');
    expect(h.ebs.volume((await volumeOf(h, 'data-1')).ebsVolumeId!)?.attachments.map((a) => a.instanceId)).toEqual([OTHER_INSTANCE]);
  });
});
