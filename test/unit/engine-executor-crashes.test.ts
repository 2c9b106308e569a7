/**
 * An executor invocation that dies (a Lambda timeout, a crash) at every point of its work: after
 * each of its side effects (a claim, a pre-call write, an EC2 call EC2 accepted, a result write, a
 * follow-up sent) it stops for good, its messages left in flight. Another environment then carries
 * on with what SQS redelivers after the visibility timeout and what the reconciler nudges: the
 * records must end where a history without the crash ends them.
 */
import { describe, expect, it } from 'vitest';
import { CreateVolumeRequestSchema, PatchVolumeRequestSchema } from '../../lib/api/schemas.js';
import { VolumeService } from '../../lib/api/service.js';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, type OperationQueue, type RecordStore, type VolumeProvider } from '../../lib/engine/ports.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { silentLog } from '../../lib/memory/index.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, INSTANCE, OTHER_INSTANCE, harness } from './engine-fixtures.js';

const MINUTE = 60_000;

const STORE_EFFECTS = new Set(['create', 'update', 'remove', 'claim', 'release']);
const EC2_EFFECTS = new Set(['createVolume', 'attachVolume', 'detachVolume', 'deleteVolume', 'modifyVolume', 'createTags', 'deleteTags']);

/**
 * `after` / `before`: the invocation dies after its `at`-th side effect, or sending it (never made).
 * `fails`: that effect is refused with an error (DynamoDB throttling, SQS or EC2 unavailable) and the
 * invocation goes on; `fails-made`: it is made, but its answer is an error (a timeout after the fact).
 */
type Mode = 'after' | 'before' | 'fails' | 'fails-made';

/** Where one invocation dies: after its `at`-th side effect (counted across its store, EC2 and queue). */
class Crash {
  effects: string[] = [];
  dead = false;
  private fire!: () => void;
  readonly fired = new Promise<void>((resolve) => (this.fire = resolve));
  constructor(
    readonly at: number,
    /** `before`: the invocation dies sending its `at`-th effect, which is never made. */
    readonly mode: Mode = 'after',
  ) {}

  /** `target` whose calls stop for good once the invocation died; the `at`-th effect is made, then it dies. */
  wrap<T extends object>(name: string, target: T, effects: Set<string>): T {
    return new Proxy(target, {
      get: (obj, prop, receiver) => {
        const value = Reflect.get(obj, prop, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          if (this.dead) return new Promise(() => undefined);
          if ((this.mode === 'fails' || this.mode === 'fails-made') && effects.has(String(prop)) && this.effects.length + 1 === this.at) {
            this.effects.push(`${name}.${String(prop)}`);
            const error = name === 'ec2' ? new ProviderError('transient', 'RequestTimeout', 'timed out') : new Error(`${name} unavailable`);
            if (this.mode === 'fails') return Promise.reject(error);
            return Promise.resolve(value.apply(obj, args)).then(
              () => Promise.reject(error),
              () => Promise.reject(error),
            );
          }
          if (this.mode === 'before' && effects.has(String(prop)) && this.effects.length + 1 === this.at) {
            this.effects.push(`${name}.${String(prop)}`);
            this.dead = true;
            this.fire();
            return new Promise(() => undefined);
          }
          const result = value.apply(obj, args);
          if (!effects.has(String(prop))) return result;
          this.effects.push(`${name}.${String(prop)}`);
          if (this.effects.length !== this.at) return result;
          // The effect is made (or refused); the invocation never hears of it.
          return Promise.resolve(result)
            .catch(() => undefined)
            .then(() => {
              this.dead = true;
              this.fire();
              return new Promise(() => undefined);
            });
        };
      },
    });
  }
}

/** Every environment of the deployment takes its EC2 tokens from one shared budget (the budget table). */
let sharedBudget = false;

function world(crashAt: number, mode: Mode = 'after') {
  const rateBudget = sharedBudget ? new MemoryRateBudget() : undefined;
  const h = harness({ ebsTimings: { modify: 20_000, optimize: 20_000 }, ...(rateBudget ? { rateBudget } : {}) });
  const service = new VolumeService({ store: h.store, clock: h.clock });
  const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics: h.metrics, log: silentLog });
  const crash = new Crash(crashAt, mode);
  const config = { rateWaitMaxMs: 0, concurrentEnvironments: 1 };
  const crashing = new Executor({
    store: crash.wrap('store', h.store as RecordStore, STORE_EFFECTS),
    queue: crash.wrap('queue', h.queue as OperationQueue, new Set(['send'])),
    provider: crash.wrap('ec2', h.ebs as VolumeProvider, EC2_EFFECTS),
    clock: h.clock,
    metrics: h.metrics,
    log: silentLog,
    config,
    newOwnerId: () => 'crashing-invocation',
    ...(rateBudget ? { rateBudget } : {}),
  });
  let crashedWhile: string | undefined;

  /** One round of the queue's event source mapping: the crashing environment until it died, then another. */
  async function deliver(): Promise<void> {
    for (let round = 0; round < 20; round++) {
      const received = h.queue.receive(10);
      if (received.length === 0) return;
      const batch = received.map((r) => ({ messageId: r.messageId, message: r.message, receiveCount: r.receiveCount }));
      let failed: Set<string>;
      if (!crash.dead) {
        const outcome = await Promise.race([crashing.run(batch), crash.fired.then(() => 'crashed' as const)]);
        // Died: nothing deleted, its messages come back after the visibility timeout.
        if (outcome === 'crashed') {
          crashedWhile = received.map((r) => r.message.op).join(',');
          return;
        }
        failed = new Set(outcome.failedMessageIds);
      } else {
        failed = new Set((await h.executor.run(batch)).failedMessageIds);
      }
      for (const r of received) if (!failed.has(r.messageId)) h.queue.delete(r.receiptHandle);
    }
  }

  let nextReconcileAt = h.clock.now() + 5 * MINUTE;
  async function run(totalMs: number, stepMs = 2000): Promise<void> {
    for (let spent = 0; spent < totalMs; spent += stepMs) {
      await h.watch();
      await deliver();
      await h.watch();
      if (h.clock.now() >= nextReconcileAt) {
        nextReconcileAt += 5 * MINUTE;
        await reconciler.run();
      }
      await h.clock.advance(stepMs);
    }
  }

  function ownedVolumes(volumeId: string) {
    return h.ebs.volumes().filter((v) => v.tags[OWNERSHIP_TAGS.record] === volumeId && v.state !== 'deleted');
  }

  function liveClaims() {
    return h.store.all().filter((r) => r.claim && r.claim.expiresAt > h.clock.now());
  }

  return { h, service, crash, run, ownedVolumes, liveClaims, crashedWhile: () => crashedWhile };
}

type World = ReturnType<typeof world>;

/** How many side effects a history makes when nothing dies (the crash point is never reached). */
async function effectsOf(history: (w: World) => Promise<void>): Promise<number> {
  const w = world(Number.POSITIVE_INFINITY);
  await history(w);
  return w.crash.effects.length;
}

/** The history with the invocation dying after (and before) each of its side effects in turn; what `check` refused, by crash point. */
async function explore(history: (w: World) => Promise<void>, check: (w: World) => Promise<void>): Promise<string[]> {
  const total = await effectsOf(history);
  expect(total).toBeGreaterThan(3);
  const failures: string[] = [];
  for (const mode of ['after', 'before', 'fails', 'fails-made'] as const) {
    for (let at = 1; at <= total; at++) {
      const w = world(at, mode);
      await history(w);
      // The history is the same up to its crash point, so every world reaches it and dies there (or
      // has that effect fail): one that did not would check a history without a crash.
      const crashed = mode === 'after' || mode === 'before' ? w.crash.dead : w.crash.effects.length >= at;
      if (!crashed) failures.push(`never died ${mode} effect ${at} (${w.crash.effects.length} made)`);
      try {
        await check(w);
      } catch (error) {
        failures.push(`died ${mode} effect ${at} (${w.crash.effects[at - 1]}; batch ${w.crashedWhile()}): ${(error as Error).message.split('\n')[0]}`);
      }
    }
  }
  return failures;
}

const SPEC = { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ };

async function createAttached(w: World, volumeIds = ['data-1']): Promise<void> {
  for (const volumeId of volumeIds) await w.service.createVolume(CreateVolumeRequestSchema.parse({ volumeId, spec: SPEC, attachTo: { instanceId: INSTANCE } }));
  await w.run(40 * MINUTE);
}

async function expectAttached(w: World, volumeId = 'data-1'): Promise<void> {
  const { h } = w;
  const volume = (await h.store.get({ kind: 'volume', volumeId })) as VolumeRecord;
  const attachment = (await h.store.get({ kind: 'attachment', volumeId, instanceId: INSTANCE })) as AttachmentRecord;
  const owned = w.ownedVolumes(volumeId);
  expect(owned.map((v) => v.ebsVolumeId), `one EC2 volume for ${volumeId}`).toEqual([volume.ebsVolumeId]);
  expect(volume.status.state, volumeId).toBe('in-use');
  expect(attachment.status.state, volumeId).toBe('attached');
  expect(owned[0]!.attachments).toEqual([expect.objectContaining({ instanceId: INSTANCE, device: attachment.device, state: 'attached' })]);
  expect(w.liveClaims()).toEqual([]);
  expect(h.queue.deadLetters()).toEqual([]);
}

describe('an invocation that dies at any point of its work', () => {
  it('creating and attaching a volume: one volume, attached, nothing left in progress', async () => {
    expect(await explore(createAttached, (w) => expectAttached(w))).toEqual([]);
  });

  /** Three volumes created and attached in one batch: the faults found exploring it (none wanted). */
  async function threeCreatedAttached(): Promise<string[]> {
    const ids = ['data-1', 'data-2', 'data-3'];
    return explore(
      (w) => createAttached(w, ids),
      async (w) => {
        for (const id of ids) await expectAttached(w, id);
        const devices = w.h.store.all().flatMap((r) => (r.kind === 'attachment' ? [r.device] : []));
        expect(new Set(devices).size).toBe(3);
      },
    );
  }

  it('creating and attaching three volumes in one batch: each once, each attached', async () => {
    expect(await threeCreatedAttached()).toEqual([]);
  });

  async function attachedThenGrown(w: World): Promise<void> {
    await w.service.createVolume(CreateVolumeRequestSchema.parse({ volumeId: 'data-1', spec: SPEC, attachTo: { instanceId: INSTANCE } }));
    await w.run(30 * MINUTE);
    await w.service.patchVolume('data-1', PatchVolumeRequestSchema.parse({ sizeGiB: 20, tags: { team: 'a' } }));
    await w.run(40 * MINUTE);
  }

  it('growing and retagging an attached volume: EC2 and the record agree, nothing left in progress', async () => {
    expect(
      await explore(attachedThenGrown, async (w) => {
        await expectAttached(w);
        const volume = (await w.h.store.get({ kind: 'volume', volumeId: 'data-1' })) as VolumeRecord;
        const ec2 = w.h.ebs.volume(volume.ebsVolumeId!)!;
        expect(ec2.sizeGiB).toBe(20);
        expect(ec2.tags.team).toBe('a');
        expect(volume.observed?.sizeGiB).toBe(20);
      }),
    ).toEqual([]);
  });

  async function attachedThenDeleted(w: World): Promise<void> {
    await w.service.createVolume(CreateVolumeRequestSchema.parse({ volumeId: 'data-1', spec: SPEC, attachTo: { instanceId: INSTANCE } }));
    await w.run(30 * MINUTE);
    await w.service.deleteVolume('data-1');
    await w.run(40 * MINUTE);
  }

  it('deleting an attached volume: detached, deleted, both records gone', async () => {
    expect(
      await explore(attachedThenDeleted, async (w) => {
        expect(w.ownedVolumes('data-1')).toEqual([]);
        expect(w.h.store.all()).toEqual([]);
        expect(w.h.queue.deadLetters()).toEqual([]);
      }),
    ).toEqual([]);
  });

  async function attachedThenMoved(w: World): Promise<void> {
    await w.service.createVolume(CreateVolumeRequestSchema.parse({ volumeId: 'data-1', spec: SPEC, attachTo: { instanceId: INSTANCE } }));
    await w.run(30 * MINUTE);
    await w.service.deleteAttachment('data-1', INSTANCE);
    await w.service.putAttachment('data-1', OTHER_INSTANCE, {});
    await w.run(40 * MINUTE);
  }

  it('detaching from one instance and attaching to another: attached there only', async () => {
    expect(
      await explore(attachedThenMoved, async (w) => {
        const volume = (await w.h.store.get({ kind: 'volume', volumeId: 'data-1' })) as VolumeRecord;
        const attachments = w.h.store.all().filter((r): r is AttachmentRecord => r.kind === 'attachment');
        expect(attachments.map((a) => [a.instanceId, a.status.state])).toEqual([[OTHER_INSTANCE, 'attached']]);
        expect(volume.status.state).toBe('in-use');
        expect(w.h.ebs.volume(volume.ebsVolumeId!)!.attachments.map((a) => [a.instanceId, a.state])).toEqual([[OTHER_INSTANCE, 'attached']]);
        expect(w.liveClaims()).toEqual([]);
        expect(w.h.queue.deadLetters()).toEqual([]);
      }),
    ).toEqual([]);
  });

  it('with a shared rate budget: creating and attaching three volumes, each once, each attached', async () => {
    sharedBudget = true;
    try {
      expect(await threeCreatedAttached()).toEqual([]);
    } finally {
      sharedBudget = false;
    }
  });
});
