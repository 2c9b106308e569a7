/**
 * A volume deleted outside the system (in the console) is forgotten by its record as a whole:
 * its EC2 id, what EC2 reported, the tag keys the system set on it (`tagKeysSet`), the failed
 * modifications and modification starts it counted: none of them says anything of a volume
 * made in its place.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { availableVolume, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a volume deleted outside the system', () => {
  it('is forgotten by its record: its id, what EC2 reported, the tag keys set on it, its failed modifications and modification starts', async () => {
    const h = await availableVolume({ team: 'a' });
    // As a CreateTags whose answer was lost leaves it (the keys it may have set claimed), after a modification and a failed one.
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      tagKeysSet: ['cost', 'team'],
      failedModifications: { target: { sizeGiB: 20, volumeType: 'gp3' }, count: 1 },
      lastModificationStartedAt: new Date(h.clock.now() - 60_000).toISOString(),
    });
    const tagged = await volumeOf(h);

    await h.ebs.deleteVolume(tagged.ebsVolumeId!);
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));
    const forgotten = await volumeOf(h);
    expect(forgotten.ebsVolumeId).toBeUndefined();
    expect(forgotten.observed).toBeUndefined();
    expect(forgotten.tagKeysSet).toBeUndefined();
    expect(forgotten.failedModifications).toBeUndefined();
    expect(forgotten.lastModificationStartedAt).toBeUndefined();
  });
});
