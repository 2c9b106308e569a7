/**
 * An operation's own message that carries a chain's operation start (`OperationMessage.chainOf`:
 * the repeated CreateVolume a check sends when the record changed while it looked) is no check of
 * that chain (`Item.unchained`). Reaching the record once the CreateVolume was answered and the
 * chain of checks is under way, past the first check's time, it is only a look, as any own message
 * is there (`checkNotDue`): it describes the volume once and sends no check beside the chain.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { alignedCheckAtMs } from '../../lib/engine/schedule.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe("an operation's own message carrying the chain's operation start", () => {
  it('past the first check, the volume still creating: one DescribeVolumes as a look, no check sent', async () => {
    const h = harness({ ebsTimings: { create: 3_600_000 } });
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('creating');
    const started = volume.status.operationStartedAt!;
    const firstCheckAt = alignedCheckAtMs('create-volume', Date.parse(started) + DEFAULT_ENGINE_CONFIG.progressChecks['create-volume'].firstSeconds * 1000, DEFAULT_ENGINE_CONFIG);
    await h.clock.advance(firstCheckAt + 1000 - h.clock.now());
    const chain = h.queue.pending().map((pending) => pending.message);
    expect(chain).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: started })]);
    const describes = h.ebs.calls.DescribeVolumes;
    const repeated: OperationMessage = { op: 'create-volume', key: KEY, reason: 'the record changed while it was checked; looking again', chainOf: started };

    expect((await h.executor.run(h.batchOf(repeated))).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual(chain);
  });
});
