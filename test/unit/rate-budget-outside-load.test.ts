/**
 * The shared rate budget learns of EC2's refusals by one unspent token each
 * (`Executor.throttledShared`). With a steady load from outside the system, EC2 lets through C
 * calls a second of the budget's B; that token alone settles the calls made at (B + C) / 2 a
 * second, (B - C) / 2 of them refused: it brings the calls halfway down. The executor holds a
 * refused environment to its own slowed share as well, which brings them the rest of the way
 * (engine-executor-outside-load.test.ts). The budget is driven here as the executor drives it: a
 * token taken (`take`, waiting at most `rateWaitMaxMs`) before each call, one more
 * (`take(…, 1, …, Infinity)`) for each RequestLimitExceeded.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { START } from './engine-fixtures.js';

/**
 * Half an hour of a backlog of calls against EC2's AttachVolume bucket (5/s, burst 50) while a
 * client outside the system steadily spends 3/s of it: the calls made and refused in the last
 * minute. `learn`: each refusal takes one more token from the budget, as `throttledShared` does.
 */
async function lastMinuteUnderOutsideLoad(learn: boolean): Promise<{ made: number; refused: number }> {
  const budget = new MemoryRateBudget();
  const account = { burst: 45, ratePerSecond: 5 }; // AttachVolume's default account budget
  const ec2 = { tokens: 50, rate: 5, burst: 50, outside: 3 };
  const last = { made: 0, refused: 0 };
  const stepMs = 100;
  const minutes = 30;
  for (let t = 0; t < minutes * 60_000; t += stepMs) {
    const now = START + t;
    ec2.tokens = Math.min(ec2.burst, ec2.tokens + ((ec2.rate - ec2.outside) * stepMs) / 1000);
    // A backlog of operations: every step, the executor asks for as many tokens as it could use now.
    const taken = await budget.take('AttachVolume', 10, account, now, 0);
    for (let i = 0; i < taken.usableAt.length; i++) {
      const lastMinute = t >= (minutes - 1) * 60_000;
      if (lastMinute) last.made++;
      if (ec2.tokens >= 1) {
        ec2.tokens -= 1;
      } else {
        if (lastMinute) last.refused++;
        if (learn) await budget.take('AttachVolume', 1, account, now, Number.POSITIVE_INFINITY);
      }
    }
  }
  return last;
}

describe('shared rate budget under a steady load from outside the system', () => {
  it('a token taken for each refusal brings the calls halfway down to what EC2 lets through, and the refusals with them', async () => {
    // Without it: 5 calls a second (300 a minute), 3 of them refused.
    expect(await lastMinuteUnderOutsideLoad(false)).toEqual({ made: 300, refused: 180 });
    // With it: (5 + 2) / 2 = 3.5 a second, 1.5 refused; halfway, neither more nor fewer.
    expect(await lastMinuteUnderOutsideLoad(true)).toEqual({ made: 3.5 * 60, refused: 1.5 * 60 });
  });
});
