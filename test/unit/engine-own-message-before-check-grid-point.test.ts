/**
 * An operation's own message that reaches its record once another message has started the
 * operation comes back as a check on the first check's grid point (`checkNotDue`): checks of
 * `create-volume` fall on whole multiples of its `alignSeconds` (2 s), so one started at an odd
 * second is first looked at a second after its `firstSeconds` have passed, not at that moment.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import type { OperationMessage } from '../../lib/engine/ports.js';
import { START, harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe("an operation's own message before the first check's grid point", () => {
  it('a creation started at an odd second: the message at its first seconds makes no call and brings a check back on the grid', async () => {
    const { firstSeconds, alignSeconds } = DEFAULT_ENGINE_CONFIG.progressChecks['create-volume'];
    expect([firstSeconds, alignSeconds]).toEqual([2, 2]);
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.clock.advance(1_000);
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    const volume: VolumeRecord = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'creating', operationStartedAt: new Date(START + 1_000).toISOString() });
    h.queue.purge();
    // 2 s after the start, at 3 s: the grid point is 4 s.
    await h.clock.advance(firstSeconds * 1000);
    const describes = h.ebs.calls.DescribeVolumes;
    const message: OperationMessage = { op: 'create-volume', key: KEY, reason: 'waited past one queue delay', dueAt: h.clock.now() };

    expect((await h.executor.run(h.batchOf(message))).failedMessageIds).toEqual([]);

    expect(h.ebs.calls.DescribeVolumes).toBe(describes);
    expect(h.ebs.calls.CreateVolume).toBe(1);
    expect(h.queue.pending().map((pending) => pending.message)).toEqual([
      expect.objectContaining({ op: 'check-volume', chainOf: volume.status.operationStartedAt }),
    ]);
    expect(h.queue.pending()[0]!.visibleAt).toBeLessThanOrEqual(START + 4_000);
  });
});
