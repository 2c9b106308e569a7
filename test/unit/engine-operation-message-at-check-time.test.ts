/**
 * An operation's message that comes after another message started the operation is held back
 * until the operation's first progress check is due (its grid point): before then EC2 cannot
 * have finished. Delivered at that very point, it is due: it looks at EC2 now, with no further
 * wait sent.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { alignedCheckAtMs } from '../../lib/engine/schedule.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** data-1 creating (its first check queued); the time of that check. */
async function creating() {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
  const volume = await volumeOf(h);
  expect(volume.status.state).toBe('creating');
  const started = Date.parse(volume.status.operationStartedAt!);
  const firstCheckAt = alignedCheckAtMs('create-volume', started + DEFAULT_ENGINE_CONFIG.progressChecks['create-volume'].firstSeconds * 1000, DEFAULT_ENGINE_CONFIG);
  return { h, firstCheckAt };
}

describe("executor: the operation's own message once the operation has started", () => {
  it('delivered at its first check time: DescribeVolumes is made now, and no check is sent back for that time', async () => {
    const { h, firstCheckAt } = await creating();
    await h.clock.advance(firstCheckAt - h.clock.now());
    const describes = h.ebs.calls.DescribeVolumes;
    const queued = h.queued().length;
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes + 1);
    expect(h.queued().slice(queued).filter((q) => q.delaySeconds === 0)).toEqual([]);
  });

  it('a millisecond before it: no DescribeVolumes, a check comes back at that time', async () => {
    const { h, firstCheckAt } = await creating();
    await h.clock.advance(firstCheckAt - 1 - h.clock.now());
    const describes = h.ebs.calls.DescribeVolumes;
    const queued = h.queued().length;
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    expect(h.ebs.calls.DescribeVolumes).toBe(describes);
    expect(h.queued().slice(queued)).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);
  });
});
