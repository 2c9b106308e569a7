/**
 * The reconciler leaves alone a record whose next attempt is overdue while its bucket has a line
 * of calls in the shared budget: its deferred message holds its place in that line. Under a steady
 * load the line never goes (other work keeps taking tokens ahead, and every RequestLimitExceeded
 * takes one more), so a record whose message was in fact lost (a follow-up the queue refused, say)
 * must still be nudged: a call waiting in line holds a token at most `tokenReservationHorizonMs`
 * ahead, so overdue by more than that, its message cannot still be waiting for it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRateBudget, MemoryRecordStore, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, OWNER, reconcilerWorld } from './reconciler-fixtures.js';

/** The table, queue, EBS model (its steps taking `timings`) and shared budget of a test, on one fake clock. */
function world(timings: ConstructorParameters<typeof MemoryEbs>[0]['timings']) {
  const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
  return {
    clock,
    store: new MemoryRecordStore(),
    queue: new MemoryOperationQueue({ clock }),
    ebs: new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [AZ], timings }),
    budget: new MemoryRateBudget(),
  };
}

/** A volume whose CreateVolume EC2 refused for its rate, its retry's message then lost: nothing in the queue for it. */
async function lostCreateRetry(store: MemoryRecordStore, clock: FakeClock): Promise<void> {
  const at = new Date(clock.now()).toISOString();
  const retryAt = new Date(clock.now() + 5_000).toISOString();
  await store.create(
    newVolume('lost', {
      status: { state: 'pending', code: 'RequestLimitExceeded', message: 'Request limit exceeded.', attempts: 0, updatedAt: at, nextAttemptAt: retryAt },
      version: 0,
      createdAt: at,
    }),
  );
}

describe('reconciler: a lost retry and a line of calls that never goes', () => {
  it('nudges an overdue retry whose message was lost, even while other calls keep a line in its bucket', async () => {
    const budget = new MemoryRateBudget();
    const { clock, store, queue, reconciler } = reconcilerWorld({ availabilityZone: AZ, rateBudget: budget });
    await lostCreateRetry(store, clock);
    expect(queue.pending()).toEqual([]);

    // A steady load of other creates keeps some ten minutes of CreateVolume tokens taken ahead, pass after pass.
    const account = DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume;
    await budget.take('CreateVolume', account.burst + 10 * 60 * account.ratePerSecond, account, clock.now(), 3_600_000);
    const nudged: string[] = [];
    for (let pass = 0; pass < 36 && nudged.length === 0; pass++) {
      await clock.advance(5 * MINUTE);
      await budget.take('CreateVolume', 5 * 60 * account.ratePerSecond, account, clock.now(), 3_600_000);
      nudged.push(...(await reconciler.run()).requeued.map((r) => r.key));
    }
    // Three hours on (the token horizon is one), the record is still `pending` with nothing queued: it must have been nudged.
    expect(nudged).toEqual(['volume/lost']);
  });
});

describe('reconciler: a lost retry nudged while its line lasts', () => {
  it('has the executor make the call at its place in the line, not drop the nudge for want of a token usable at once pass after pass', async () => {
    const budget = new MemoryRateBudget();
    const { clock, store, queue, ebs, reconciler, executor } = reconcilerWorld({ availabilityZone: AZ, rateBudget: budget, config: { rateWaitMaxMs: 0 } });
    await lostCreateRetry(store, clock);

    // Other creates keep some ten minutes of CreateVolume tokens taken ahead, minute after minute.
    const account = DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume;
    await budget.take('CreateVolume', account.burst + 10 * 60 * account.ratePerSecond, account, clock.now(), 3_600_000);
    const nudged: string[] = [];
    for (let minute = 1; minute <= 180; minute++) {
      await clock.advance(MINUTE);
      await budget.take('CreateVolume', 60 * account.ratePerSecond, account, clock.now(), 3_600_000);
      const batch = queue.receive(10);
      if (batch.length > 0) {
        const { failedMessageIds } = await executor.run(batch.map((m) => ({ messageId: m.messageId, message: m.message, receiveCount: m.receiveCount })));
        for (const m of batch) if (!failedMessageIds.includes(m.messageId)) queue.delete(m.receiptHandle);
      }
      if (minute % 5 === 0) nudged.push(...(await reconciler.run()).requeued.map((r) => r.key));
    }
    // Nudged once the line could no longer hold its message (an hour and more overdue), as the
    // operation, which takes its token at the end of the line: made some ten minutes later, once,
    // and nudged no more (passes meanwhile see it overdue still, and their copies find it made).
    expect(nudged.length).toBeGreaterThan(0);
    expect(nudged.length).toBeLessThanOrEqual(3);
    expect(ebs.calls.CreateVolume).toBe(1);
    expect((await store.get({ kind: 'volume', volumeId: 'lost' }))?.status).toMatchObject({ state: 'available', attempts: 0 });
    expect(queue.pending()).toEqual([]);
  });
});

describe('reconciler: a lost modification retry nudged while its line lasts', () => {
  it('keeps one chain of checks while EC2 modifies the volume for an hour: the copies of the nudge that come back then are looks', async () => {
    const { clock, store, queue, ebs, budget } = world({ modify: 60 * MINUTE, optimize: MINUTE });
    const config = { ownerTagValue: OWNER, rateWaitMaxMs: 0 };
    const reconciler = new Reconciler({ store, queue, provider: ebs, rateBudget: budget, clock, metrics: new RecordingMetrics(), log: silentLog, config });
    const executor = new Executor({ store, queue, provider: ebs, rateBudget: budget, clock, metrics: new RecordingMetrics(), log: silentLog, config, random: () => 0.5 });
    const { ebsVolumeId } = await ebs.createVolume({
      clientToken: 'grow',
      availabilityZone: AZ,
      spec: { sizeGiB: 10, volumeType: 'gp3' },
      tags: { [OWNERSHIP_TAGS.owner]: OWNER, [OWNERSHIP_TAGS.record]: 'grow' },
    });
    await clock.advance(MINUTE);
    const at = new Date(clock.now()).toISOString();
    const retryAt = new Date(clock.now() + 5_000).toISOString();
    // A grow to 30 GiB that EC2 throttled; the retry's message was then lost.
    await store.create(
      newVolume(
        'grow',
        {
          ebsVolumeId,
          availabilityZone: AZ,
          generation: 2,
          observed: { sizeGiB: 10, volumeType: 'gp3', tags: {} },
          observedGeneration: 1,
          status: { state: 'available', code: 'RequestLimitExceeded', message: 'Request limit exceeded.', attempts: 1, updatedAt: at, nextAttemptAt: retryAt },
          version: 0,
          createdAt: at,
        },
        { sizeGiB: 30 },
      ),
    );

    // Other calls of the mutating actions' bucket keep some ten minutes of its tokens taken ahead.
    const mutating = DEFAULT_ENGINE_CONFIG.accountRateBudgets.AttachVolume;
    await budget.take('AttachVolume', mutating.burst + 10 * 60 * mutating.ratePerSecond, mutating, clock.now(), 3_600_000);
    let checksAtOnce = 0;
    for (let minute = 1; minute <= 180; minute++) {
      await clock.advance(MINUTE);
      await budget.take('AttachVolume', 60 * mutating.ratePerSecond, mutating, clock.now(), 3_600_000);
      const batch = queue.receive(10);
      if (batch.length > 0) {
        const { failedMessageIds } = await executor.run(batch.map((m) => ({ messageId: m.messageId, message: m.message, receiveCount: m.receiveCount })));
        for (const m of batch) if (!failedMessageIds.includes(m.messageId)) queue.delete(m.receiptHandle);
      }
      if (minute % 5 === 0) await reconciler.run();
      if ((await store.get({ kind: 'volume', volumeId: 'grow' }))?.status.state === 'modifying')
        checksAtOnce = Math.max(checksAtOnce, queue.pending().filter((p) => p.message.op === 'check-volume' && !p.message.nudge).length);
    }
    expect(ebs.calls.ModifyVolume).toBe(1);
    expect(ebs.volume(ebsVolumeId)?.sizeGiB).toBe(30);
    expect((await store.get({ kind: 'volume', volumeId: 'grow' }))?.status.state).toBe('available');
    expect(checksAtOnce).toBe(1);
  });
});
