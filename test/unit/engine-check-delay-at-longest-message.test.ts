/**
 * A progress check due exactly as far off as the longest message delay fits in one message and,
 * like any other, is sent a batching window early, so that its batch forms at its time, never
 * after it. Only a wait longer than the longest delay is chained through `dueAt`.
 */
import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../lib/engine/config.js';
import { checkQueueDelay } from '../../lib/engine/schedule.js';

describe('checkQueueDelay at the longest message delay', () => {
  const config = resolveEngineConfig({ queueBatchingWindowSeconds: 1, maxMessageDelaySeconds: 900 });

  it('sends a check due in exactly 900 s a window early, in one message', () => {
    expect(checkQueueDelay(0, 900_000, config)).toEqual({ delaySeconds: 899 });
    expect(checkQueueDelay(0, 900_999, config)).toEqual({ delaySeconds: 899 });
  });

  it('chains a check due a whole second later', () => {
    expect(checkQueueDelay(0, 901_000, config)).toEqual({ delaySeconds: 900, dueAt: 901_000 });
  });
});
