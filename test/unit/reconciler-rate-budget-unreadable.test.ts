/**
 * When the shared rate budget cannot be read, the reconciler judges every pending call as it does
 * without one (`bucketsInLine`: empty "when it cannot be read"): a line read in a bucket before the
 * read failed does not keep an overdue call from its nudge.
 */
import { describe, expect, it } from 'vitest';
import type { SharedRateBudget } from '../../lib/engine/ports.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

describe('reconciler with a shared rate budget it cannot read', () => {
  it('nudges an overdue create whose bucket the budget showed a line in before a later read failed, and says it judges without the budget', async () => {
    const reads: string[] = [];
    // CreateVolume shows a line; the next bucket's read fails (the table throttled, say).
    const rateBudget: SharedRateBudget = {
      take: () => Promise.reject(new Error('not used by the reconciler')),
      waitMs: async (bucket) => {
        reads.push(bucket);
        if (bucket === 'CreateVolume') return MINUTE;
        throw new Error('ProvisionedThroughputExceededException');
      },
    };
    const log = new RecordingLog();
    const { clock, store, queue, reconciler } = reconcilerWorld({ availabilityZone: AZ, rateBudget, log });
    const at = new Date(clock.now()).toISOString();
    // Its CreateVolume was refused for its rate; the retry's message was lost.
    await store.create(
      newVolume('lost', {
        status: { state: 'pending', code: 'RequestLimitExceeded', message: 'Request limit exceeded.', attempts: 0, updatedAt: at, nextAttemptAt: new Date(clock.now() + 5_000).toISOString() },
        version: 0,
        createdAt: at,
      }),
    );
    await clock.advance(10 * MINUTE);

    const report = await reconciler.run();

    expect(reads.slice(0, 2)).toEqual(['CreateVolume', 'AttachVolume']);
    expect(log.entries).toContainEqual({
      level: 'warn',
      message: 'could not read the shared rate budget; judging pending calls without it',
      attributes: { error: 'ProvisionedThroughputExceededException' },
    });
    expect(report.requeued).toEqual([{ key: 'volume/lost', reason: `next attempt was due at ${new Date(Date.parse(at) + 5_000).toISOString()}` }]);
    expect(queue.pending().map((p) => ({ op: p.message.op, nudge: p.message.nudge }))).toEqual([{ op: 'check-volume', nudge: true }]);
  });
});
