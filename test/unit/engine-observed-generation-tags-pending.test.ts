/**
 * `observedGeneration` is the generation EC2's volume matches: a check that finds EC2 holding the
 * spec's size and performance but not its tags (a change of both, the tags not yet put) does not
 * record the new generation as observed.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { availableVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const iso = (ms: number) => new Date(ms).toISOString();

describe('a check finding the size held and the tags not', () => {
  it('leaves observedGeneration at the generation EC2 matched', async () => {
    const h = await availableVolume({ team: 'storage' }, {});
    const made = await volumeOf(h);
    expect(made).toMatchObject({ status: { state: 'available' }, observedGeneration: 1 });

    // The client changed the tags in generation 2; a check comes while the record still says modifying.
    const startedAt = iso(h.clock.now() - 10 * 60_000);
    await h.store.update<VolumeRecord>(KEY, {
      spec: { ...made.spec, tags: { team: 'databases' } },
      generation: 2,
      status: { state: 'modifying', attempts: 0, updatedAt: startedAt, operationStartedAt: startedAt },
    });
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));

    const checked = await volumeOf(h);
    expect(checked.status.state).toBe('available');
    expect(checked.observed?.tags).toEqual({ team: 'storage' });
    expect(checked.observedGeneration).toBe(1);
  });
});
