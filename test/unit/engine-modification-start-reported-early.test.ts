/**
 * EC2 reports a modification's start to the second, by a clock that may be a few seconds off
 * ours (`EC2_TIME_SLACK_MS`): a modification EC2 lists as started a little before the record's
 * operation began is that operation's, not an earlier one's. Listed under way, the record stays
 * `modifying`, however long past the describe grace the check comes.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { EC2_TIME_SLACK_MS } from '../../lib/engine/status.js';
import { silentLog } from '../../lib/memory/index.js';
import { iopsModification, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const HOUR = 3_600_000;

describe("executor: a modification EC2 lists as started a little before the record's operation", () => {
  it('is the one under way: the record stays modifying past the describe grace', async () => {
    const h = await iopsModification({ modify: 2 * HOUR, optimize: 2 * HOUR });
    const started = Date.parse((await volumeOf(h)).status.operationStartedAt!);
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
    // EC2's clock a little behind ours: the start it reports comes before the record's.
    const provider = providerOver(h.ebs, {
      describeVolumeModifications: async (ids) =>
        (await h.ebs.describeVolumeModifications(ids)).map((m) => ({ ...m, startedAt: started - EC2_TIME_SLACK_MS + 1000 })),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 60_000);
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).status).toMatchObject({ state: 'modifying', message: 'modification in progress' });
  });
});
