/**
 * What the reconciler says of a volume changed outside the system: a throughput EC2 reports other
 * than the one the record observed is drift like size, type and IOPS; a tag drift names its keys,
 * up to five, and counts only those beyond.
 */
import { describe, expect, it } from 'vitest';
import { AZ, newVolume } from './engine-fixtures.js';
import { MINUTE, reconcilerWorld } from './reconciler-fixtures.js';

/** Volume record data-1, available, whose record observed `observedTags` and gp3 at 125 MiB/s; EC2 then holds `changed` (throughput, tags). */
async function changedOutside(observedTags: Record<string, string>, changed: { throughput?: number; tags?: Record<string, string> }) {
  const { clock, store, ebs, reconciler, owned } = reconcilerWorld({ availabilityZone: AZ });
  const { ebsVolumeId } = await owned('data-1', { sizeGiB: 10, volumeType: 'gp3', throughput: 125 }, observedTags);
  await clock.advance(10_000);
  const at = new Date(clock.now()).toISOString();
  await store.create(
    newVolume(
      'data-1',
      {
        ebsVolumeId,
        availabilityZone: AZ,
        observed: { sizeGiB: 10, volumeType: 'gp3', iops: 3000, throughput: 125, tags: observedTags },
        observedGeneration: 1,
        status: { state: 'available', attempts: 0, updatedAt: at },
        version: 0,
        createdAt: at,
      },
      { throughput: 125, tags: observedTags },
    ),
  );
  if (changed.throughput !== undefined) await ebs.modifyVolume({ ebsVolumeId, throughput: changed.throughput });
  if (changed.tags) await ebs.createTags(ebsVolumeId, changed.tags);
  await clock.advance(10 * MINUTE);
  return { reconciler };
}

describe('reconciler drift reasons', () => {
  it('a throughput changed outside is drift', async () => {
    const { reconciler } = await changedOutside({}, { throughput: 250 });
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/data-1', reason: 'EC2 reports throughput 250 (the record observed 125)' }]);
  });

  it('five tags changed outside are named, with no count of more', async () => {
    const observed = { a: '1', b: '1', c: '1', d: '1', e: '1' };
    const { reconciler } = await changedOutside(observed, { tags: { a: '2', b: '2', c: '2', d: '2', e: '2' } });
    expect((await reconciler.run()).requeued).toEqual([{ key: 'volume/data-1', reason: 'EC2 tags differ from the record\'s: a, b, c, d, e' }]);
  });
});
