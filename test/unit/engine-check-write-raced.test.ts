/**
 * A progress check's write is conditional on the record being the version it read. When the
 * record changed meanwhile with the same operation still under way, unclaimed and with no retry
 * pending (a client's tag edit), the check's chain goes on from the record as it is now. When the
 * change put a retry in its status, or another invocation holds the record, or the item is one
 * that does not parse, this check sends nothing: the retry, the holder or the person putting the
 * item right decides what follows, and a second chain of checks is not started beside theirs.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import type { Log } from '../../lib/engine/ports.js';
import { data1Created, harness, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

/** data-1's IOPS raised: EC2 modifying it, done within a few seconds; the log's warnings kept. */
async function modifying() {
  const warnings: string[] = [];
  const log: Log = { debug: () => {}, info: () => {}, warn: (message) => warnings.push(message), error: () => {} };
  const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 }, log });
  await data1Created(h, 10_000);
  const volume = await volumeOf(h);
  await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, iops: 4000 }, generation: 2 });
  await h.executor.run(h.batchOf(h.op('modify-volume', KEY)));
  expect((await volumeOf(h)).status.state).toBe('modifying');
  h.queue.purge();
  h.changes.splice(0);
  await h.clock.advance(5_000);
  return { h, warnings };
}

/** Has `change` made to the record just before the next write of what a check saw, which then finds the record changed. */
function raceNextObservation(h: ReturnType<typeof harness>, change: () => Promise<void>): { raced: () => boolean } {
  const update = h.store.update.bind(h.store);
  let armed = true;
  h.store.update = (async (key, changes, condition) => {
    if (armed && key.kind === 'volume' && 'observed' in (changes as object)) {
      armed = false;
      await change();
    }
    return update(key, changes, condition);
  }) as typeof h.store.update;
  return { raced: () => !armed };
}

async function checkOnce(h: ReturnType<typeof harness>) {
  const { failedMessageIds } = await h.executor.run(h.batchOf(h.op('check-volume', KEY)));
  expect(failedMessageIds).toEqual([]);
}

describe('executor: a check whose write finds the record changed, the modification still under way', () => {
  it("changed by a client's tag edit: the chain goes on, at once, on the record as it is now", async () => {
    const { h } = await modifying();
    const race = raceNextObservation(h, async () => {
      const volume = await volumeOf(h);
      await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, tags: { team: 'b' } }, generation: 3 });
    });
    await checkOnce(h);

    expect(race.raced()).toBe(true);
    expect((await volumeOf(h)).status.state).toBe('modifying');
    expect(h.queued()).toEqual([expect.objectContaining({ op: 'check-volume', key: 'data-1', delaySeconds: 0 })]);
  });

  it('claimed by another invocation: nothing is sent; the holder plans what follows', async () => {
    const { h } = await modifying();
    const race = raceNextObservation(h, async () => {
      expect(await h.store.claim(KEY, 'another-invocation', h.clock.now(), 60_000)).toMatchObject({ ok: true });
    });
    await checkOnce(h);

    expect(race.raced()).toBe(true);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'modifying' }, claim: { owner: 'another-invocation' } });
    expect(h.queued()).toEqual([]);
  });

  it('given a retry meanwhile (a failed look written): nothing is sent; the retry comes when due', async () => {
    const { h } = await modifying();
    const race = raceNextObservation(h, async () => {
      const { status } = await volumeOf(h);
      const nextAttemptAt = new Date(h.clock.now() + 30_000).toISOString();
      await h.store.update<VolumeRecord>(KEY, { status: { ...status, code: 'InternalError', message: 'EC2 had an internal error', attempts: 1, nextAttemptAt } });
    });
    await checkOnce(h);

    expect(race.raced()).toBe(true);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'modifying', code: 'InternalError', attempts: 1 });
    expect(h.queued()).toEqual([]);
  });

  it('replaced by an item that does not parse: nothing is sent, and the item is reported, not acted on', async () => {
    const { h, warnings } = await modifying();
    const race = raceNextObservation(h, async () => {
      const volume = await volumeOf(h);
      h.store.putRaw({ ...volume, version: volume.version + 1, spec: { ...volume.spec, sizeGiB: 'twenty' } });
    });
    await checkOnce(h);

    expect(race.raced()).toBe(true);
    expect(h.queued()).toEqual([]);
    expect(warnings).toContain('invalid record; not acting on it');
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });
});
