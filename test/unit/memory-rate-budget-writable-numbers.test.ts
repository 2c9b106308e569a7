/**
 * The in-memory rate budget stores only the levels the DynamoDB budget's write can store: the
 * DynamoDB client writes every number from Number.MIN_SAFE_INTEGER to Number.MAX_SAFE_INTEGER
 * and refuses those beyond, on either side.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';

const budget = { burst: 50, ratePerSecond: 5 };

describe('MemoryRateBudget: the numbers it stores', () => {
  it('stores a level at Number.MAX_SAFE_INTEGER and at its negative, the bounds the DynamoDB client writes', async () => {
    for (const now of [Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER]) {
      const shared = new MemoryRateBudget();
      expect((await shared.take('AttachVolume', 10, budget, now, 0)).usableAt).toHaveLength(10);
      expect(shared.level('AttachVolume')).toEqual({ tokens: 40, updatedAt: now });
    }
  });

  it('refuses a level one past either bound, or at -Infinity, and stores nothing: the bucket stays full', async () => {
    const T = Date.parse('2026-01-01T00:00:00Z');
    for (const now of [Number.MAX_SAFE_INTEGER + 1, -Number.MAX_SAFE_INTEGER - 1, Number.NEGATIVE_INFINITY]) {
      const shared = new MemoryRateBudget();
      await expect(shared.take('AttachVolume', 1, budget, now, 0)).rejects.toThrow(
        new RangeError(`rate budget AttachVolume: updatedAt would be ${now}, a number the DynamoDB client does not write`),
      );
      expect(shared.level('AttachVolume')).toBeUndefined();
      expect((await shared.take('AttachVolume', 60, budget, T, 0)).usableAt).toHaveLength(50);
    }
  });
});
