/**
 * A volume EC2 accepted the CreateVolume for and does not list: within the describe grace of the
 * call a describe may lag it, and the check waits for it to appear; once the grace has passed,
 * EC2 removed it while creating it (an encryption key it cannot use), and the record says so.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** data-1 creating, EC2 having removed its volume at once; the time of the CreateVolume. */
async function createdAndRemoved() {
  const h = harness();
  const create = h.ebs.createVolume.bind(h.ebs);
  h.ebs.createVolume = async (request) => {
    const volume = await create(request);
    h.ebs.deleteBehindBack(volume.ebsVolumeId);
    return volume;
  };
  await h.store.create(newVolume('data-1'));
  await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
  const volume = await volumeOf(h);
  expect(volume.status.state).toBe('creating');
  return { h, started: Date.parse(volume.status.operationStartedAt!), ebsVolumeId: volume.ebsVolumeId! };
}

describe('executor: a check of a volume being created that EC2 does not list', () => {
  it('a millisecond before the describe grace ends: still creating, waiting for it to appear', async () => {
    const { h, started, ebsVolumeId } = await createdAndRemoved();
    await h.clock.advance(started + DEFAULT_ENGINE_CONFIG.describeGraceMs - 1 - h.clock.now());
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    expect((await volumeOf(h)).status).toMatchObject({ state: 'creating', message: `waiting for ${ebsVolumeId} to appear` });
  });

  it('once the grace has passed: in error, EC2 removed it while creating it', async () => {
    const { h, started, ebsVolumeId } = await createdAndRemoved();
    await h.clock.advance(started + DEFAULT_ENGINE_CONFIG.describeGraceMs - h.clock.now());
    await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'error', code: 'InvalidVolume.NotFound', attempts: 1 });
    expect(volume.status.message).toMatch(new RegExp(`^EC2 removed volume ${ebsVolumeId} while creating it; `));
  });
});
