/**
 * A modification EC2 accepts and then fails is counted toward its target, the size, type and
 * performance the spec asked for: another IOPS asked for is another target, whose failures are
 * counted from one rather than from the count of the IOPS EC2 kept failing.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

type Harness = ReturnType<typeof harness>;

async function run(h: Harness, ms: number): Promise<void> {
  for (let spent = 0; spent < ms; spent += 5000) {
    await h.watch();
    await h.settle(5000, 5000);
  }
  await h.watch();
}

/** Asks for `iops` and runs until EC2 has failed a modification to it. */
async function askIopsUntilFailed(h: Harness, iops: number, generation: number): Promise<VolumeRecord> {
  const { spec } = await volumeOf(h);
  await h.store.update<VolumeRecord>(KEY, { spec: { ...spec, iops }, generation });
  for (let i = 0; i < 60 && (await volumeOf(h)).failedModifications?.target.iops !== iops; i++) await run(h, 5000);
  return volumeOf(h);
}

describe('modifications EC2 fails, counted per IOPS asked for', () => {
  it('the target counted is the IOPS asked for; another IOPS is counted from one', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    await h.store.create(newVolume('data-1'));
    await h.watch();
    await h.settle(10_000);
    await h.watch();
    const modify = h.ebs.modifyVolume.bind(h.ebs);
    h.ebs.modifyVolume = async (request) => {
      await modify(request);
      h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
    };

    const first = await askIopsUntilFailed(h, 4000, 2);
    expect(first.failedModifications).toEqual({ target: { sizeGiB: 10, volumeType: 'gp3', iops: 4000 }, count: 1 });
    expect(first.status).toMatchObject({ code: 'ModificationFailed', attempts: 1 });

    const second = await askIopsUntilFailed(h, 5000, 3);
    expect(second.failedModifications).toEqual({ target: { sizeGiB: 10, volumeType: 'gp3', iops: 5000 }, count: 1 });
    expect(second.status).toMatchObject({ code: 'ModificationFailed', attempts: 1 });
  });
});
