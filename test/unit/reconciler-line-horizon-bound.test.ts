/**
 * A retry overdue while its bucket has a line of calls is left alone only as long as the line may
 * still hold its message: a call in line holds a token at most `tokenReservationHorizonMs` ahead,
 * and a message is taken for lost once it is `overdueAfterMs` late (to the millisecond). Overdue by
 * both together, to the millisecond, the retry is nudged however long the line.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { MemoryRateBudget } from '../../lib/memory/index.js';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

const OVERDUE_AFTER_MS = 5 * MINUTE;
const HORIZON_MS = DEFAULT_ENGINE_CONFIG.tokenReservationHorizonMs;

describe('reconciler: a lost retry beside a line of calls, at the line\'s bound', () => {
  it('leaves the retry alone a millisecond before it is overdue by the horizon and the overdue time together, and nudges it then', async () => {
    const budget = new MemoryRateBudget();
    const { clock, store, reconciler } = reconcilerWorld({ availabilityZone: AZ, rateBudget: budget });
    const at = new Date(clock.now()).toISOString();
    const due = clock.now() + 5_000;
    // EC2 refused its CreateVolume for its rate; the retry's message was then lost.
    await store.create(
      newVolume('lost', {
        status: { state: 'pending', code: 'RequestLimitExceeded', message: 'Request limit exceeded.', attempts: 0, updatedAt: at, nextAttemptAt: new Date(due).toISOString() },
        version: 0,
        createdAt: at,
      }),
    );
    // Other creates took some two hours of CreateVolume tokens ahead: the line outlasts both passes.
    const account = DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume;
    await budget.take('CreateVolume', account.burst + 2 * 3600 * account.ratePerSecond, account, clock.now(), 3 * 3_600_000);

    await clock.advance(due + OVERDUE_AFTER_MS + HORIZON_MS - 1 - clock.now());
    expect(await budget.waitMs('CreateVolume', account, clock.now())).toBeGreaterThan(0);
    expect((await reconciler.run()).requeued).toEqual([]);

    await clock.advance(1);
    expect(await budget.waitMs('CreateVolume', account, clock.now())).toBeGreaterThan(0);
    expect((await reconciler.run()).requeued.map((r) => r.key)).toEqual(['volume/lost']);
  });
});
