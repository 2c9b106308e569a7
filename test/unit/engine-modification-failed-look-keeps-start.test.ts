/**
 * A failed look at a modification under way is an attempt, but its start stays on the status
 * (`modificationLookFailure`): the checks tell this modification from earlier ones by it, and its
 * chain of checks goes on from it once the look is retried.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { iopsModification, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;

describe("executor: a failed look at a modification under way", () => {
  it("keeps the modification's start on the status, and the checks after the retry carry on its chain", async () => {
    const h = await iopsModification({ modify: 120 * MINUTE, optimize: 120 * MINUTE });
    const started = (await volumeOf(h)).status.operationStartedAt;
    expect(started).toEqual(expect.any(String));
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'InternalError', 'DescribeVolumes failed'));
    for (let i = 0; i < 60 && (await volumeOf(h)).status.nextAttemptAt === undefined; i++) await h.settle(10_000, 10_000);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'modifying', code: 'InternalError', attempts: 1, operationStartedAt: started, nextAttemptAt: expect.any(String) });
    // The retry looks again and finds EC2 still modifying: the chain of checks goes on, of the same modification.
    await h.settle(2 * MINUTE, 10_000);
    await h.watch();
    expect((await volumeOf(h)).status).toMatchObject({ state: 'modifying', operationStartedAt: started });
    expect(h.queue.pending().map((p) => p.message).filter((m) => m.op === 'check-volume')).toEqual([expect.objectContaining({ chainOf: started })]);
  });
});
