/**
 * A ModifyVolume whose answer was lost (`modificationSentAt` kept) is looked for among EC2's
 * modifications before the spec is taken as held: one EC2 dates from the send on, allowing for
 * EC2's clock and its dating to the second (`EC2_TIME_SLACK_MS`, that bound included), is that
 * call, and no further wait is needed; one dated before it may be an earlier one, so the record
 * keeps looking until the describe grace after the send is over. The one found counts toward EC2's modification limit.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { EC2_TIME_SLACK_MS } from '../../lib/engine/status.js';
import { silentLog } from '../../lib/memory/log.js';
import { availableVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

async function lostAnswerListedAt(offsetMs: number, sentAgoMs = 1_000): Promise<{ volume: VolumeRecord; listedAt: number }> {
  const h = await availableVolume({});
  const volume = await volumeOf(h);
  const sentAt = h.clock.now() - sentAgoMs;
  await h.store.update<VolumeRecord>(volumeKey('data-1'), { modificationSentAt: new Date(sentAt).toISOString() });
  const provider = providerOver(h.ebs, {
    describeVolumeModifications: async () => [{ ebsVolumeId: volume.ebsVolumeId!, state: 'completed', targetSizeGiB: 10, targetVolumeType: 'gp3', startedAt: sentAt + offsetMs }],
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
  await executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
  expect(h.ebs.calls.ModifyVolume ?? 0).toBe(0);
  return { volume: await volumeOf(h), listedAt: sentAt + offsetMs };
}

describe('a ModifyVolume whose answer was lost, EC2 holding the spec', () => {
  it('is found in a modification EC2 dates up to the slack before the send: the record settles at once', async () => {
    const { volume, listedAt } = await lostAnswerListedAt(-EC2_TIME_SLACK_MS);
    expect(volume.modificationSentAt).toBeUndefined();
    // It counts toward EC2's limit of modifications from when EC2 started it.
    expect(volume.lastModificationStartedAt).toBe(new Date(listedAt).toISOString());
    expect(volume.status).toMatchObject({ state: 'available' });
    expect(volume.status.code).toBeUndefined();
  });

  it('is still looked for when EC2 dates its latest modification earlier than that', async () => {
    const { volume } = await lostAnswerListedAt(-EC2_TIME_SLACK_MS - 1_000);
    expect(volume.modificationSentAt).toEqual(expect.any(String));
    expect(volume.status).toMatchObject({ state: 'available', code: 'ModificationUnconfirmed' });
  });

  it('is looked for no longer than the describe grace after the send: then the spec EC2 holds is taken as held', async () => {
    const { volume } = await lostAnswerListedAt(-EC2_TIME_SLACK_MS - 1_000, DEFAULT_ENGINE_CONFIG.describeGraceMs);
    expect(volume.modificationSentAt).toBeUndefined();
    expect(volume.status.state).toBe('available');
    expect(volume.status.code).toBeUndefined();
  });
});
