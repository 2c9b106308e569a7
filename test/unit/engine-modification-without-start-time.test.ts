/**
 * A modification EC2 lists without a start time cannot be told from an earlier one by its start:
 * it is taken as the record's own. Listed under way, the record stays `modifying`, however long past
 * the describe grace the check comes.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { iopsModification, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const HOUR = 3_600_000;

describe('executor: a modification EC2 lists under way with no start time', () => {
  it("is the record's own: the record stays modifying past the describe grace", async () => {
    const h = await iopsModification({ modify: 2 * HOUR, optimize: 2 * HOUR });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
    const provider = providerOver(h.ebs, {
      describeVolumeModifications: async (ids) =>
        (await h.ebs.describeVolumeModifications(ids)).map(({ startedAt: _start, ...m }) => m),
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.describeGraceMs + 60_000);
    await executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    expect((await volumeOf(h)).status).toMatchObject({ state: 'modifying', message: 'modification in progress' });
  });
});
