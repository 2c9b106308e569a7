/**
 * A ModifyVolume whose answer was lost, found optimizing (EC2 already describes the new values):
 * EC2 holds the spec, so the record says so at once (the marker of the unanswered call cleared)
 * rather than waiting for the optimization to end.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, settleAll, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a ModifyVolume whose answer was lost, found optimizing toward the spec', () => {
  it('is taken as holding the spec at once, with no second call', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 60 * 60_000 } });
    await h.store.create(newVolume('data-1'));
    await settleAll(h);
    expect((await volumeOf(h)).status.state).toBe('available');
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { spec: { ...(await volumeOf(h)).spec, iops: 4000 }, generation: 2 });
    const modifyVolume = h.ebs.modifyVolume.bind(h.ebs);
    h.ebs.modifyVolume = async (request) => {
      await modifyVolume(request);
      h.ebs.modifyVolume = modifyVolume;
      throw new ProviderError('transient', 'RequestTimeout', 'ModifyVolume timed out');
    };
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    h.queue.receive(100).forEach((m) => h.queue.delete(m.receiptHandle));
    expect((await volumeOf(h)).modificationSentAt).toEqual(expect.any(String));

    await h.clock.advance(10_000);
    const [modification] = await h.ebs.describeVolumeModifications([(await volumeOf(h)).ebsVolumeId!]);
    expect(modification?.state).toBe('optimizing');
    await h.executor.run(h.batchOf(h.op('modify-volume', volumeKey('data-1'))));
    const volume = await volumeOf(h);
    expect(volume).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 }, observedGeneration: 2 });
    expect(volume.status.code).toBeUndefined();
    expect(volume.modificationSentAt).toBeUndefined();
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });
});
