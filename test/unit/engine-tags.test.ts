/**
 * Tags changed after creation: the watcher plans a tag-volume, the executor brings EC2's client
 * tags to the spec's with CreateTags and DeleteTags (never touching the ownership tags) and records
 * what EC2 then holds; duplicate and late messages call nothing more.
 */
import { describe, expect, it, vi } from 'vitest';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { parseRecord } from '../../lib/domain/validation.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { DEFAULT_ENGINE_CONFIG, type RateBucket } from '../../lib/engine/config.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { availableVolume, harness, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;
const SPEC = { sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a' };

type Harness = ReturnType<typeof harness>;

/** Volume data-1 tagged team=a, env=dev, created through the watcher and the executor, available. */
async function taggedVolume(): Promise<Harness> {
  const h = await availableVolume({ team: 'a', env: 'dev' });
  expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { tags: { team: 'a', env: 'dev' } }, observedGeneration: 1 });
  return h;
}

/** The client changes the spec's tags (the API's write: spec and generation). */
async function retag(h: Harness, tags: Record<string, string> | undefined, generation = 2, sizeGiB = 10): Promise<void> {
  await h.store.update<VolumeRecord>(KEY, { spec: { ...SPEC, sizeGiB, ...(tags ? { tags } : {}) }, generation });
  await h.watch();
}

/**
 * `taggedVolume` grown four times to 50 GiB (generations 2 to 5), each once the one before
 * completed, then asked for 60 GiB within 24 hours of the first: waiting for EC2's limit of 4
 * modifications in 24 hours (generation 6).
 */
async function coolingVolume(): Promise<Harness> {
  const h = await taggedVolume();
  for (const [i, sizeGiB] of [20, 30, 40, 50].entries()) {
    await retag(h, { team: 'a', env: 'dev' }, i + 2, sizeGiB);
    await h.settle(MINUTE);
    await h.watch();
    expect(await volumeOf(h)).toMatchObject({ observed: { sizeGiB }, observedGeneration: i + 2 });
  }
  await retag(h, { team: 'a', env: 'dev' }, 6, 60);
  await h.settle(10_000);
  await h.watch();
  expect(h.ebs.calls.ModifyVolume).toBe(4);
  return h;
}

/** Volume data-1 tagged team=a, env=dev, created by executors spending `rateBudget` together, available. */
async function sharedBudgetVolume(rateBudget: MemoryRateBudget): Promise<Harness> {
  const h = harness({ rateBudget });
  await h.store.create(newVolume('data-1', {}, { tags: { team: 'a', env: 'dev' } }));
  await h.watch();
  await h.settle(10_000);
  await h.watch();
  expect((await volumeOf(h)).status.state).toBe('available');
  return h;
}

/** Tokens the shared budget's `bucket` holds as stored (a bucket never taken from is full). */
function tokensLeft(rateBudget: MemoryRateBudget, bucket: RateBucket): number {
  return rateBudget.level(bucket)?.tokens ?? DEFAULT_ENGINE_CONFIG.accountRateBudgets[bucket].burst;
}

/** The client asks for team=b; EC2 takes the CreateTags, whose answer is lost (a timeout); its message is gone too. */
async function teamChangedAnswerLost(h: Harness): Promise<void> {
  const createTags = h.ebs.createTags.bind(h.ebs);
  h.ebs.createTags = async (ebsVolumeId, tags) => {
    await createTags(ebsVolumeId, tags);
    h.ebs.createTags = createTags;
    throw new ProviderError('transient', 'RequestTimeout', 'CreateTags timed out');
  };
  await retag(h, { team: 'b', env: 'dev' });
  await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
  h.queue.receive(100).forEach((m) => h.queue.delete(m.receiptHandle));
}

function ec2Tags(h: Harness, record: VolumeRecord): Record<string, string> {
  return h.ebs.volume(record.ebsVolumeId!)!.tags;
}

describe('tag-volume', () => {
  it('sets changed and added tags with CreateTags, removes dropped ones with DeleteTags, and leaves the ownership tags alone', async () => {
    const h = await taggedVolume();
    const createTags = vi.spyOn(h.ebs, 'createTags');
    const deleteTags = vi.spyOn(h.ebs, 'deleteTags');
    const ownership = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    expect(ec2Tags(h, await volumeOf(h))).toEqual({ ...ownership, team: 'a', env: 'dev' });

    await retag(h, { team: 'b', cost: 'c-1' });
    await h.drain();
    await h.watch();

    const volume = await volumeOf(h);
    expect(createTags.mock.calls).toEqual([[volume.ebsVolumeId, { team: 'b', cost: 'c-1' }]]);
    expect(deleteTags.mock.calls).toEqual([[volume.ebsVolumeId, ['env']]]);
    expect(ec2Tags(h, volume)).toEqual({ ...ownership, team: 'b', cost: 'c-1' });
    expect(volume).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { tags: { team: 'b', cost: 'c-1' } }, observedGeneration: 2 });
    expect(volume.status.code).toBeUndefined();
    expect(h.metrics.operations).toContainEqual(expect.objectContaining({ operation: 'tag-volume', outcome: 'succeeded' }));
  });

  it('removes every client tag with DeleteTags alone when the spec drops them all', async () => {
    const h = await taggedVolume();
    await retag(h, undefined);
    await h.drain();
    const volume = await volumeOf(h);
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 1 });
    expect(ec2Tags(h, volume)).toEqual({ [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' });
    expect(volume).toMatchObject({ observed: { tags: {} }, observedGeneration: 2 });
  });

  it("removes tags named like an object's own properties (toString, constructor, __defineGetter__) as any other", async () => {
    const h = await taggedVolume();
    const named = { toString: 'x', constructor: 'y', __defineGetter__: 'z' };
    await retag(h, { team: 'a', ...named });
    await h.drain();
    await h.watch();
    expect(ec2Tags(h, await volumeOf(h))).toMatchObject(named);
    await retag(h, { team: 'a' }, 3);
    await h.drain();
    await h.watch();
    const volume = await volumeOf(h);
    expect(ec2Tags(h, volume)).toEqual({ [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1', team: 'a' });
    expect(volume).toMatchObject({ observed: { tags: { team: 'a' } }, observedGeneration: 3 });
  });

  it("after a lost CreateTags answer, drops a key named like an object's own property that the client no longer wants", async () => {
    const h = await taggedVolume();
    const createTags = h.ebs.createTags.bind(h.ebs);
    h.ebs.createTags = async (ebsVolumeId, tags) => {
      await createTags(ebsVolumeId, tags);
      h.ebs.createTags = createTags;
      throw new ProviderError('transient', 'RequestTimeout', 'CreateTags timed out');
    };
    await retag(h, { team: 'a', env: 'dev', constructor: 'c' });
    await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
    h.queue.receive(100).forEach((m) => h.queue.delete(m.receiptHandle));
    expect((await volumeOf(h)).tagKeysSet).toEqual(['constructor']);
    await retag(h, { team: 'a', env: 'dev' }, 3);
    await h.drain();
    await h.watch();
    const volume = await volumeOf(h);
    expect(Object.hasOwn(ec2Tags(h, volume), 'constructor')).toBe(false);
    expect(volume.tagKeysSet ?? []).toEqual([]);
  });

  it('makes one call for duplicate messages in one batch, and none for late ones once EC2 holds the tags', async () => {
    const h = await taggedVolume();
    await retag(h, { team: 'b', env: 'dev' });
    const pending = h.queue.receive(100);
    expect(pending.map((p) => p.message.op)).toEqual(['tag-volume']);
    await h.executor.run([...h.batchOf(pending[0]!.message), ...h.batchOf(h.op('tag-volume', KEY))]);
    expect(h.ebs.calls.CreateTags).toBe(1);

    // A late copy and another environment's redelivery, after the tags are held.
    await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
    await h.environment().run(h.batchOf(h.op('tag-volume', KEY), h.op('check-volume', KEY)));
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 0 });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b', env: 'dev' } }, observedGeneration: 2 });
  });

  it('calls nothing when EC2 already holds the tags (a status write lost after the call), and records them', async () => {
    const h = await taggedVolume();
    const volume = await volumeOf(h);
    await h.ebs.createTags(volume.ebsVolumeId!, { team: 'b' });
    h.ebs.calls.CreateTags = 0;
    await retag(h, { team: 'b', env: 'dev' });
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 0 });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b', env: 'dev' } }, observedGeneration: 2, status: { state: 'available' } });
  });

  describe('a key a CreateTags set whose result was never recorded', () => {
    /** CreateTags reaches EC2 for `cost=7`; then its answer is lost (a timeout) or the status write after it fails. */
    async function setWithoutRecord(loss: 'answer' | 'write'): Promise<Harness> {
      const h = await taggedVolume();
      const createTags = h.ebs.createTags.bind(h.ebs);
      h.ebs.createTags = async (ebsVolumeId, tags) => {
        await createTags(ebsVolumeId, tags);
        h.ebs.createTags = createTags;
        if (loss === 'answer') throw new ProviderError('transient', 'RequestTimeout', 'CreateTags timed out');
        h.store.failNext('update', new Error('DynamoDB unavailable'));
      };
      await retag(h, { team: 'a', env: 'dev', cost: '7' });
      await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
      const volume = await volumeOf(h);
      expect(ec2Tags(h, volume)).toMatchObject({ cost: '7' });
      expect(volume.observed?.tags).toEqual({ team: 'a', env: 'dev' });
      expect(volume.tagKeysSet).toEqual(['cost']);
      return h;
    }

    for (const loss of ['answer', 'write'] as const) {
      it(`is removed from EC2 when the client drops it before the change is retried (${loss} lost)`, async () => {
        const h = await setWithoutRecord(loss);
        await retag(h, { team: 'a', env: 'dev' }, 3);
        await h.settle(5 * MINUTE);
        await h.watch();
        await h.settle(MINUTE);
        const volume = await volumeOf(h);
        expect(ec2Tags(h, volume)).not.toHaveProperty('cost');
        expect(volume).toMatchObject({ observed: { tags: { team: 'a', env: 'dev' } }, observedGeneration: 3 });
        expect(volume.tagKeysSet).toBeUndefined();
        expect(h.ebs.calls.DeleteTags).toBe(1);
      });
    }

    it('with its value changed by the lost call and put back by the client meanwhile, is not taken as held: EC2 gets the value back', async () => {
      const h = await taggedVolume();
      await teamChangedAnswerLost(h);
      expect(ec2Tags(h, await volumeOf(h))).toMatchObject({ team: 'b' });
      await retag(h, { team: 'a', env: 'dev' }, 3);
      expect((await volumeOf(h)).observedGeneration).not.toBe(3);
      await h.settle(MINUTE);
      await h.watch();
      const volume = await volumeOf(h);
      expect(ec2Tags(h, volume)).toMatchObject({ team: 'a', env: 'dev' });
      expect(volume).toMatchObject({ observed: { tags: { team: 'a', env: 'dev' } }, observedGeneration: 3 });
      expect(volume.tagKeysSet).toBeUndefined();
    });

    it('is recorded, and its key forgotten from tagKeysSet, by the next check when the client keeps it', async () => {
      const h = await setWithoutRecord('answer');
      // Once the lost call's backoff has ended: a look before then leaves the record to its retry.
      await h.clock.advance(Date.parse((await volumeOf(h)).status.nextAttemptAt!) - h.clock.now());
      await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
      const volume = await volumeOf(h);
      expect(volume.observed?.tags).toEqual({ team: 'a', env: 'dev', cost: '7' });
      expect(volume.tagKeysSet).toBeUndefined();
    });
  });

  it('replaces 30 tags by 30 others within EC2\'s limit of 50 a volume: the keys it drops go first', async () => {
    const h = await taggedVolume();
    const keys = (prefix: string) => Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${prefix}${i}`, 'v']));
    await retag(h, keys('a'));
    await h.settle(MINUTE);
    await h.watch();
    await retag(h, keys('b'), 3);
    await h.settle(MINUTE);
    await h.watch();
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { tags: keys('b') }, observedGeneration: 3 });
    expect(volume.status.code).toBeUndefined();
    expect(ec2Tags(h, volume)).toEqual({ ...keys('b'), [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' });
  });

  it('keeps the keys it may have set within bounds across failed calls while the client changes every key: the record stays valid and EC2 ends with the spec', async () => {
    const h = await taggedVolume();
    const keys = (prefix: string) => Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${prefix}${i}`, 'v']));
    // Every CreateTags fails for a while: a throttle (certain), then timeouts after EC2 acted (the answer lost).
    const createTags = h.ebs.createTags.bind(h.ebs);
    let failures = 0;
    h.ebs.createTags = async (ebsVolumeId, tags) => {
      failures++;
      if (failures === 1) throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
      await createTags(ebsVolumeId, tags);
      if (failures <= 4) throw new ProviderError('transient', 'RequestTimeout', 'CreateTags timed out');
    };
    await retag(h, keys('a'));
    await h.drain();
    await retag(h, keys('b'), 3);
    await h.settle(MINUTE);
    await h.watch();
    await retag(h, keys('c'), 4);
    await h.settle(MINUTE);
    await h.watch();
    await retag(h, keys('d'), 5);
    for (let i = 0; i < 10; i++) {
      await h.settle(MINUTE);
      await h.watch();
    }
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { tags: keys('d') }, observedGeneration: 5 });
    expect(ec2Tags(h, volume)).toEqual({ ...keys('d'), [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' });
    expect(volume.tagKeysSet).toBeUndefined();
  });

  it('names, before a CreateTags, only the earlier unrecorded keys EC2 still holds beside its own: the list stays bounded and the record valid', async () => {
    const h = await taggedVolume();
    const stale = Array.from({ length: 90 }, (_, i) => `old${i}`);
    await h.store.update<VolumeRecord>(KEY, { tagKeysSet: ['env', ...stale].slice(0, 91) });
    const wanted = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`new${i}`, 'v']));
    await retag(h, { ...wanted, team: 'a', env: 'dev' });
    h.ebs.failNext('CreateTags', new ProviderError('transient', 'RequestTimeout', 'CreateTags timed out'));
    await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
    const volume = await volumeOf(h);
    expect(volume.tagKeysSet).toEqual(['env', ...Object.keys(wanted)].sort());
    expect(parseRecord(volume).ok).toBe(true);
  });

  it('takes the claim with the write naming the keys it sets: a tag change writes twice, before and after its call', async () => {
    const h = await taggedVolume();
    await retag(h, { team: 'b', env: 'dev' });
    const writes = h.store.writes;
    const other = h.environment();
    let during: VolumeRecord | undefined;
    const createTags = h.ebs.createTags.bind(h.ebs);
    h.ebs.createTags = async (ebsVolumeId, tags) => {
      during = await volumeOf(h);
      // Another environment's copy of the message meanwhile finds the claim held: no call.
      await other.run(h.batchOf(h.op('tag-volume', KEY)));
      return createTags(ebsVolumeId, tags);
    };
    await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
    expect(during).toMatchObject({ tagKeysSet: ['team'], claim: { owner: expect.any(String) } });
    expect(h.store.writes - writes).toBe(2);
    expect(h.ebs.calls.CreateTags).toBe(1);
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ observed: { tags: { team: 'b', env: 'dev' } }, observedGeneration: 2 });
    expect(volume.tagKeysSet).toBeUndefined();
    expect(volume.claim).toBeUndefined();
  });

  it('forgets a volume that vanished, found by the describe or by CreateTags itself', async () => {
    for (const where of ['describe', 'call'] as const) {
      const h = await taggedVolume();
      const volume = await volumeOf(h);
      if (where === 'describe') {
        await h.ebs.deleteVolume(volume.ebsVolumeId!);
        await h.clock.advance(MINUTE);
      } else {
        h.ebs.failNext('CreateTags', new ProviderError('not-found', 'InvalidVolume.NotFound', `The volume '${volume.ebsVolumeId}' does not exist.`));
      }
      await retag(h, { team: 'b', env: 'dev' });
      await h.drain();
      const after = await volumeOf(h);
      expect(after.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound' });
      expect(after.ebsVolumeId).toBeUndefined();
      expect(after.observed).toBeUndefined();
    }
  });

  it("ends in error on EC2's tag limit, with a message that says what to do", async () => {
    const h = await taggedVolume();
    h.ebs.failNext('CreateTags', new ProviderError('limit-exceeded', 'TagLimitExceeded', 'The maximum number of tags for resource vol-1 has been reached.'));
    await retag(h, { team: 'b', env: 'dev' });
    await h.drain();
    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'error', code: 'TagLimitExceeded' });
    expect(volume.status.message).toMatch(/at most 50 tags.*remove some from spec\.tags/);
    expect(h.ebs.calls.CreateTags).toBe(1);
  });

  it("says what to do on EC2's tag limit however long EC2's message is, shortening that message", async () => {
    const h = await taggedVolume();
    // 3 000 characters of two UTF-16 units each after one of one: the cut falls inside a pair.
    h.ebs.failNext('CreateTags', new ProviderError('limit-exceeded', 'TagLimitExceeded', `é${'😀'.repeat(1500)}`));
    await retag(h, { team: 'b', env: 'dev' });
    await h.drain();
    const { status } = await volumeOf(h);
    expect(status).toMatchObject({ state: 'error', code: 'TagLimitExceeded' });
    expect(status.message).toMatch(/^EC2 refused the tags: é(😀)+… \(a volume carries at most 50 tags.*remove some from spec\.tags\)$/u);
    expect(status.message!.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
  });

  it('gives a tag change asked for while a grow EC2 refused 7 times waits its retry a budget of its own, and the grow after it one too', async () => {
    const h = await taggedVolume();
    h.ebs.failNext('ModifyVolume', new ProviderError('unauthorized', 'UnauthorizedOperation', 'You are not authorized to perform this operation.'), 8);
    await retag(h, { team: 'a', env: 'dev' }, 2, 20);
    while ((h.ebs.calls.ModifyVolume ?? 0) < 7) await h.settle(1000);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'UnauthorizedOperation', attempts: 7 });

    h.ebs.failNext('CreateTags', new ProviderError('transient', 'InternalError', 'An internal error has occurred.'));
    await retag(h, { team: 'b', env: 'dev' }, 3, 20);
    await h.drain();
    expect(h.ebs.calls.CreateTags).toBe(1);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'InternalError', attempts: 1 });
    await h.settle(10 * MINUTE, 5000);
    await h.watch();
    expect(h.ebs.calls.ModifyVolume).toBe(9);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20, tags: { team: 'b', env: 'dev' } }, observedGeneration: 3 });
  });

  it('gives a grow asked for once a tag removal EC2 failed 7 times is put back a budget of its own', async () => {
    const h = await taggedVolume();
    h.ebs.failNext('DeleteTags', new ProviderError('unauthorized', 'UnauthorizedOperation', 'You are not authorized to perform this operation.'), 7);
    await retag(h, { team: 'a' });
    while ((h.ebs.calls.DeleteTags ?? 0) < 7) await h.settle(1000);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'UnauthorizedOperation', attempts: 7 });

    h.ebs.failNext('ModifyVolume', new ProviderError('transient', 'InternalError', 'An internal error has occurred.'));
    await retag(h, { team: 'a', env: 'dev' }, 3, 20);
    await h.drain();
    expect(h.ebs.calls.ModifyVolume).toBe(1);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'InternalError', attempts: 1 });
    await h.settle(10 * MINUTE, 5000);
    await h.watch();
    expect(h.ebs.calls).toMatchObject({ DeleteTags: 7, ModifyVolume: 2 });
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { sizeGiB: 20, tags: { team: 'a', env: 'dev' } }, observedGeneration: 3 });
  });

  it('leaves no failure in the status of a tag removal EC2 kept failing once the client puts the tag back', async () => {
    const h = await taggedVolume();
    h.ebs.failNext('DeleteTags', new ProviderError('unauthorized', 'UnauthorizedOperation', 'You are not authorized to perform this operation.'), 8);
    await retag(h, { team: 'a' });
    while ((h.ebs.calls.DeleteTags ?? 0) < 3) await h.settle(1000);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'UnauthorizedOperation', attempts: 3 });

    await retag(h, { team: 'a', env: 'dev' }, 3);
    await h.settle(10 * MINUTE, 5000);
    await h.watch();
    const volume = await volumeOf(h);
    expect(volume.status).toEqual({ state: 'available', attempts: 0, updatedAt: expect.any(String) });
    expect(volume).toMatchObject({ observed: { tags: { team: 'a', env: 'dev' } }, observedGeneration: 3 });
    expect(h.ebs.calls.DeleteTags).toBe(3);
  });

  it('waits after throttling without using an attempt, retries a transient error with one, and gets there', async () => {
    const h = await taggedVolume();
    h.ebs.failNext('DeleteTags', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    await retag(h, { team: 'a' });
    await h.drain();
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'RequestLimitExceeded', attempts: 0 });
    h.ebs.failNext('DeleteTags', new ProviderError('transient', 'InternalError', 'An internal error has occurred.'));
    await h.settle(30_000);
    await h.settle(2 * MINUTE, 5000);
    const volume = await volumeOf(h);
    expect(h.ebs.calls.DeleteTags).toBe(3);
    expect(volume).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { tags: { team: 'a' } }, observedGeneration: 2 });
  });

  it('takes a CreateTags token and a mutating-actions token (DeleteTags) from the shared budget when it sets and removes keys', async () => {
    const rateBudget = new MemoryRateBudget();
    const h = await sharedBudgetVolume(rateBudget);
    const attachLevel = tokensLeft(rateBudget, 'AttachVolume');
    await retag(h, { team: 'b' });
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 1 });
    expect(tokensLeft(rateBudget, 'CreateTags')).toBe(DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateTags.burst - 1);
    expect(tokensLeft(rateBudget, 'AttachVolume')).toBe(attachLevel - 1);
  });

  it('takes only a mutating-actions token for a change that only removes keys, and only a CreateTags token for one that only sets them', async () => {
    const rateBudget = new MemoryRateBudget();
    const h = await sharedBudgetVolume(rateBudget);
    const createTagsLevel = tokensLeft(rateBudget, 'CreateTags');
    const attachLevel = tokensLeft(rateBudget, 'AttachVolume');

    await retag(h, { team: 'a' });
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 1 });
    expect(tokensLeft(rateBudget, 'CreateTags')).toBe(createTagsLevel);
    expect(tokensLeft(rateBudget, 'AttachVolume')).toBe(attachLevel - 1);

    await retag(h, { team: 'a', env: 'prod' }, 3);
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 1 });
    expect(tokensLeft(rateBudget, 'CreateTags')).toBe(createTagsLevel - 1);
    expect(tokensLeft(rateBudget, 'AttachVolume')).toBe(attachLevel - 1);
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'a', env: 'prod' } }, observedGeneration: 3 });
  });

  it('defers a change that only removes keys for a mutating-actions token before claiming it, whatever the CreateTags bucket holds', async () => {
    const rateBudget = new MemoryRateBudget();
    const h = await sharedBudgetVolume(rateBudget);
    // The mutating-actions bucket spent by others, 200 s ahead: the DeleteTags waits in line for its token, with no write.
    await rateBudget.take('AttachVolume', 1000, DEFAULT_ENGINE_CONFIG.accountRateBudgets.AttachVolume, h.clock.now(), Number.POSITIVE_INFINITY);
    await retag(h, {});
    const before = await volumeOf(h);
    await h.drain();
    expect(h.ebs.calls.DeleteTags).toBe(0);
    expect(await volumeOf(h)).toEqual(before);
    expect(h.queue.pending().map((p) => p.message)).toEqual([expect.objectContaining({ op: 'tag-volume', tokenAt: expect.any(Number) })]);
    expect(rateBudget.level('CreateTags')).toBeUndefined();

    await h.settle(5 * MINUTE, 10_000);
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 1 });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: {} }, observedGeneration: 2, status: { state: 'available', attempts: 0 } });
  });

  it('takes no token for a look that only settles a CreateTags whose answer was lost, its value put back by the client: EC2 tells whether a call is due', async () => {
    const rateBudget = new MemoryRateBudget();
    const h = await sharedBudgetVolume(rateBudget);
    await teamChangedAnswerLost(h);
    expect((await volumeOf(h)).tagKeysSet).toEqual(['team']);
    const createTagsLevel = tokensLeft(rateBudget, 'CreateTags');
    const attachLevel = tokensLeft(rateBudget, 'AttachVolume');

    // The client puts team=a back: the record names nothing to change, only a key to look at.
    await retag(h, { team: 'a', env: 'dev' }, 3);
    await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
    expect(tokensLeft(rateBudget, 'CreateTags')).toBe(createTagsLevel - 1);
    expect(tokensLeft(rateBudget, 'AttachVolume')).toBe(attachLevel);
    expect(h.ebs.calls.CreateTags).toBe(2);
    expect(ec2Tags(h, await volumeOf(h))).toMatchObject({ team: 'a' });

    // EC2 already back at team=a (the call above): the next look calls nothing and takes nothing.
    await h.store.update<VolumeRecord>(KEY, { tagKeysSet: ['team'] });
    await h.executor.run(h.batchOf(h.op('tag-volume', KEY)));
    expect(tokensLeft(rateBudget, 'CreateTags')).toBe(createTagsLevel - 1);
    expect(h.ebs.calls.CreateTags).toBe(2);
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ observed: { tags: { team: 'a', env: 'dev' } }, observedGeneration: 3 });
    expect(volume.tagKeysSet).toBeUndefined();
  });

  it("removes keys at once while this environment's CreateTags share is spent, without a shared budget", async () => {
    const h = harness({ config: { rateBudgets: { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateTags: { burst: 1, ratePerSecond: 0.001 } } } });
    await h.store.create(newVolume('data-1', {}, { tags: { team: 'a', env: 'dev' } }));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    // The share's one CreateTags token spent; the next lasts 1000 s off.
    await retag(h, { team: 'b', env: 'dev' });
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 0 });

    await retag(h, { team: 'b' }, 3);
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 1 });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 3 });

    // A change that sets a key waits for the CreateTags token.
    await retag(h, { team: 'c' }, 4);
    await h.drain();
    expect(h.ebs.calls.CreateTags).toBe(1);
    expect(h.queue.pending().map((p) => p.message.op)).toEqual(['tag-volume']);
  });

  it("retags while a modification waits for EC2's limit, keeping the wait in the status", async () => {
    const h = await coolingVolume();
    expect((await volumeOf(h)).status).toMatchObject({ state: 'available', code: 'VolumeModificationRateExceeded' });
    const modifies = h.ebs.calls.ModifyVolume;

    await retag(h, { team: 'b', env: 'dev' }, 7, 60);
    await h.settle(10_000);
    await h.watch();
    const volume = await volumeOf(h);
    expect(h.ebs.calls.CreateTags).toBe(1);
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
    expect(ec2Tags(h, volume)).toMatchObject({ team: 'b' });
    // Tags held, the modification still waits (so the spec is not held yet).
    expect(volume).toMatchObject({ observed: { sizeGiB: 50, tags: { team: 'b', env: 'dev' } }, observedGeneration: 5, status: { code: 'VolumeModificationRateExceeded' } });
  });

  it("a tag call that fails during a wait for EC2's limit writes its failure over it; once the tags are held the wait is shown again, and no ModifyVolume follows before it ends", async () => {
    const h = await coolingVolume();
    const waiting = (await volumeOf(h)).status;
    expect(waiting).toMatchObject({ code: 'VolumeModificationRateExceeded', nextAttemptAt: expect.any(String) });
    const modifies = h.ebs.calls.ModifyVolume;

    h.ebs.failNext('CreateTags', new ProviderError('transient', 'InternalError', 'An internal error has occurred.'));
    await retag(h, { team: 'b', env: 'dev' }, 7, 60);
    await h.drain();
    expect((await volumeOf(h)).status).toMatchObject({ code: 'InternalError', attempts: 1 });
    await h.settle(10 * MINUTE, 5000);
    await h.watch();
    const volume = await volumeOf(h);
    expect(h.ebs.calls.CreateTags).toBe(2);
    expect(ec2Tags(h, volume)).toMatchObject({ team: 'b' });
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
    expect(volume).toMatchObject({ observed: { sizeGiB: 50, tags: { team: 'b', env: 'dev' } }, observedGeneration: 5, status: { code: 'VolumeModificationRateExceeded', nextAttemptAt: waiting.nextAttemptAt, attempts: 0 } });

    // Up to (never past) the minute before the wait ends, in steps of 10 minutes, then of a minute.
    for (const step of [10 * MINUTE, MINUTE]) await h.settle(Math.floor((Date.parse(waiting.nextAttemptAt!) - 1 - h.clock.now()) / step) * step, step);
    expect(h.ebs.calls.ModifyVolume).toBe(modifies);
    await h.settle(10 * MINUTE, 5000);
    expect(await volumeOf(h)).toMatchObject({ observed: { sizeGiB: 60 }, observedGeneration: 7 });
    expect(h.ebs.calls.ModifyVolume).toBe(modifies + 1);
  });

  it("carries out a tag change whose message was lost, on the reconciler's nudge", async () => {
    const h = await taggedVolume();
    await retag(h, { team: 'b', env: 'dev' });
    for (const lost of h.queue.receive(100)) h.queue.delete(lost.receiptHandle);
    await h.clock.advance(10 * MINUTE);
    await new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog }).run();
    await h.drain();
    expect(h.ebs.calls.CreateTags).toBe(1);
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b', env: 'dev' } }, observedGeneration: 2 });
  });

  it("puts back tags changed outside the system on the reconciler's pass: a changed or removed tag with one CreateTags", async () => {
    const ownership = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    const cases: { outside: Record<string, string>; calls: Record<string, number>; set: Record<string, string> }[] = [
      { outside: { team: 'x', env: 'dev' }, calls: { CreateTags: 1, DeleteTags: 0 }, set: { team: 'a' } },
      { outside: { team: 'a' }, calls: { CreateTags: 1, DeleteTags: 0 }, set: { env: 'dev' } },
    ];
    for (const { outside, calls, set } of cases) {
      const h = await taggedVolume();
      const createTags = vi.spyOn(h.ebs, 'createTags');
      const deleteTags = vi.spyOn(h.ebs, 'deleteTags');
      const before = await volumeOf(h);
      h.ebs.retagBehindBack(before.ebsVolumeId!, { ...ownership, ...outside });

      await h.clock.advance(10 * MINUTE);
      const report = await new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog }).run();
      expect(report.requeued).toEqual([{ key: 'volume/data-1', reason: expect.stringMatching(/^EC2 tags differ from the record's: /) }]);
      await h.drain();
      await h.watch();
      await h.drain();

      const after = await volumeOf(h);
      expect(h.ebs.calls).toMatchObject(calls);
      expect(createTags.mock.calls).toEqual([[after.ebsVolumeId, set]]);
      expect(deleteTags).not.toHaveBeenCalled();
      expect(ec2Tags(h, after)).toEqual({ ...ownership, team: 'a', env: 'dev' });
      expect(after).toMatchObject({ status: { state: 'available', attempts: 0 }, observed: { tags: { team: 'a', env: 'dev' } }, observedGeneration: 1 });
      // Put back: the next pass finds nothing to do.
      await h.clock.advance(10 * MINUTE);
      expect((await new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog }).run()).requeued).toEqual([]);
    }
  });

  it("puts back tags changed outside that an attachment's check sees, without waiting for the reconciler", async () => {
    const h = await taggedVolume();
    const ownership = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    const before = await volumeOf(h);
    h.ebs.retagBehindBack(before.ebsVolumeId!, { ...ownership, team: 'x', env: 'dev' });

    // The attach's check writes the volume's state from its DescribeVolumes answer, tags included.
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    await h.drain();

    const after = await volumeOf(h);
    expect(after.status.state).toBe('in-use');
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 0 });
    expect(ec2Tags(h, after)).toEqual({ ...ownership, team: 'a', env: 'dev' });
    expect(after.observed?.tags).toEqual({ team: 'a', env: 'dev' });
  });

  it('leaves alone a tag set outside the system under a key the client never named, through the reconciler, checks and tag changes', async () => {
    const h = await taggedVolume();
    const ownership = { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner', [OWNERSHIP_TAGS.record]: 'data-1' };
    const before = await volumeOf(h);
    h.ebs.retagBehindBack(before.ebsVolumeId!, { ...ownership, team: 'a', env: 'dev', cost: 'c-1' });

    await h.clock.advance(10 * MINUTE);
    const report = await new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog }).run();
    expect(report.requeued).toEqual([]);
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    await h.watch();
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 0 });
    expect((await volumeOf(h)).observed?.tags).toEqual({ team: 'a', env: 'dev' });

    // The client drops `env` and changes `team`: its own keys follow, `cost` stays.
    const deleteTags = vi.spyOn(h.ebs, 'deleteTags');
    await retag(h, { team: 'b' });
    await h.drain();
    expect(deleteTags.mock.calls).toEqual([[before.ebsVolumeId, ['env']]]);
    expect(ec2Tags(h, before)).toEqual({ ...ownership, team: 'b', cost: 'c-1' });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 2 });
  });

  it('looks at the tags of a record kept without its CreateVolume request before retagging it, once its client changes them', async () => {
    const h = await taggedVolume();
    const { tags: _dropped, ...observed } = (await volumeOf(h)).observed!;
    await h.store.update<VolumeRecord>(KEY, { observed, createRequest: null });
    await h.watch();
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 0 });
    const describes = h.ebs.calls.DescribeVolumes;

    await retag(h, { team: 'b' });
    await h.settle(10_000);
    await h.watch();
    expect(h.ebs.calls.DescribeVolumes).toBeGreaterThan(describes);
    // `env` was in no spec or observation the record keeps: nothing says the system set it, so it stays.
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 0 });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b' } }, observedGeneration: 2 });
  });

  it('retags nothing for a record written before tags were observed, until its client changes them', async () => {
    const h = await taggedVolume();
    const { tags: _dropped, ...observed } = (await volumeOf(h)).observed!;
    await h.store.update<VolumeRecord>(KEY, { observed });
    await h.watch();
    // The reconciler's pass and a check: no tag call; the check records the tags EC2 holds.
    await h.clock.advance(10 * MINUTE);
    await new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog }).run();
    await h.drain();
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    expect(h.ebs.calls).toMatchObject({ CreateTags: 0, DeleteTags: 0 });
    expect((await volumeOf(h)).observed?.tags).toEqual({ team: 'a', env: 'dev' });

    await h.store.update<VolumeRecord>(KEY, { observed });
    await retag(h, { team: 'b', env: 'dev' });
    await h.drain();
    expect(h.ebs.calls).toMatchObject({ CreateTags: 1, DeleteTags: 0 });
    expect(await volumeOf(h)).toMatchObject({ observed: { tags: { team: 'b', env: 'dev' } }, observedGeneration: 2 });
  });
});
