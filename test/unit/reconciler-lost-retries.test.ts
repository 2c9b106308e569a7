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
import { Reconciler } from '../../lib/engine/reconciler.js';
import { FakeClock, MemoryEbs, MemoryOperationQueue, MemoryRateBudget, MemoryRecordStore, RecordingMetrics, silentLog } from '../../lib/memory/index.js';
import { AZ, newVolume } from './engine-fixtures.js';

const OWNER = 'stack-test';
const MINUTE = 60_000;

describe('reconciler: a lost retry and a line of calls that never goes', () => {
  it('nudges an overdue retry whose message was lost, even while other calls keep a line in its bucket', async () => {
    const clock = new FakeClock(Date.parse('2026-03-01T00:00:00Z'));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const ebs = new MemoryEbs({ clock, ownerTagValue: OWNER, availabilityZones: [AZ] });
    const budget = new MemoryRateBudget();
    const reconciler = new Reconciler({ store, queue, provider: ebs, rateBudget: budget, clock, metrics: new RecordingMetrics(), log: silentLog, config: { ownerTagValue: OWNER } });
    const at = new Date(clock.now()).toISOString();
    const retryAt = new Date(clock.now() + 5_000).toISOString();
    // EC2 refused its CreateVolume; the retry's message was then lost: nothing in the queue for it.
    await store.create(
      newVolume('lost', {
        status: { state: 'pending', code: 'RequestLimitExceeded', message: 'Request limit exceeded.', attempts: 0, updatedAt: at, nextAttemptAt: retryAt },
        version: 0,
        createdAt: at,
      }),
    );
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
