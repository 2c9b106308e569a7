import { describe, expect, it } from 'vitest';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';

const T = Date.parse('2026-01-01T00:00:00Z');
const budget = { burst: 50, ratePerSecond: 5 };

describe('MemoryRateBudget: the stored level it hands out', () => {
  it('hands out a copy: changing it changes neither the stored level nor what the next take grants', async () => {
    const shared = new MemoryRateBudget();
    await shared.take('AttachVolume', 40, budget, T, 0);
    const level = shared.level('AttachVolume')!;
    level.tokens = 1_000;
    level.updatedAt = 0;
    expect(shared.level('AttachVolume')).toEqual({ tokens: 10, updatedAt: T });
    expect((await shared.take('AttachVolume', 40, budget, T, 0)).usableAt).toHaveLength(10);
  });
});
