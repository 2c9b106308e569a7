/**
 * A progress check whose write finds the record changed meanwhile goes on with its chain only
 * when the same operation is still under way (same state, same start): a record moved on to
 * another operation, or out of this one's state, was planned by its writer, so the check sends
 * nothing that would double that writer's chain.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/log.js';
import { iopsModification, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const HOUR = 3_600_000;

/** A check of data-1's modification that sees it end, during which `change` is written to the record, as another writer would. */
async function checkWhileChanged(change: (volume: VolumeRecord) => Partial<VolumeRecord>) {
  const h = await iopsModification({ modify: HOUR, optimize: HOUR });
  h.queue.purge();
  let written: Promise<void> | undefined;
  const meanwhile = () =>
    (written ??= (async () => {
      await h.store.update<VolumeRecord>(volumeKey('data-1'), change(await volumeOf(h)));
      // EC2 ends the modification before it answers: the check has something to write.
      await h.clock.advance(3 * HOUR);
    })());
  const provider = providerOver(h.ebs, {
    describeVolumes: async (ids) => (await meanwhile(), h.ebs.describeVolumes(ids)),
    describeVolumeModifications: async (ids) => (await meanwhile(), h.ebs.describeVolumeModifications(ids)),
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog });
  await executor.run(h.batchOf({ ...h.op('check-volume', volumeKey('data-1')), chainOf: (await volumeOf(h)).status.operationStartedAt! }));
  expect(written).toBeDefined();
  return h;
}

describe('a progress check whose record changed while it looked', () => {
  it('goes on with its chain when the same modification is still under way, to see its end again at once', async () => {
    const h = await checkWhileChanged((volume) => ({ spec: { ...volume.spec, tags: { team: 'b' } }, generation: volume.generation + 1 }));
    expect(h.queued()).toEqual([{ op: 'check-volume', key: 'data-1', delaySeconds: 0 }]);
  });

  it('sends nothing when the record is under another modification (another start)', async () => {
    const h = await checkWhileChanged((volume) => ({ status: { ...volume.status, operationStartedAt: new Date(Date.parse(volume.status.operationStartedAt!) + 60_000).toISOString() } }));
    expect(h.queued()).toEqual([]);
  });

  it('sends nothing when the record left the modification (another state, same start)', async () => {
    const h = await checkWhileChanged((volume) => ({ status: { ...volume.status, state: 'available' } }));
    expect(h.queued()).toEqual([]);
  });
});
