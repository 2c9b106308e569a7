/**
 * A modification's attempts (grow / type / IOPS / throughput changes): how long one EC2 is making
 * is followed, and when the modifications EC2 failed stop counting (a retry, the spec put back).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { VolumeService } from '../../lib/api/service.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { START, attachmentKey, data1Created, harness, iopsModification, newAttachment, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

type Harness = ReturnType<typeof harness>;

async function run(h: Harness, ms: number, stepMs = 5000): Promise<void> {
  for (let spent = 0; spent < ms; spent += stepMs) {
    await h.watch();
    await h.settle(stepMs, stepMs);
  }
  await h.watch();
}

/**
 * data-1 made, and every modification of it then failed by EC2 once accepted, until `remaining`
 * (set by the test) runs out.
 */
async function failingModifications(h: Harness): Promise<{ remaining: number }> {
  await data1Created(h, 10_000);
  const failing = { remaining: Number.POSITIVE_INFINITY };
  const modify = h.ebs.modifyVolume.bind(h.ebs);
  h.ebs.modifyVolume = async (request) => {
    await modify(request);
    if (failing.remaining-- > 0) h.ebs.failModification(request.ebsVolumeId, 'The volume could not be modified.');
  };
  return failing;
}

describe('a modification EC2 keeps `modifying` for longer than the maximum operation age (6 hours)', () => {
  it('is not given up on while EC2 is still making it: the record ends available with the new IOPS, never in error', async () => {
    const h = await iopsModification({ modify: 8 * HOUR, optimize: 1000 });

    const states = new Set<string>();
    for (let hour = 0; hour < 9; hour++) {
      await run(h, HOUR, 5 * MINUTE);
      states.add((await volumeOf(h)).status.state);
    }
    expect([...states]).not.toContain('error');
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 }, observedGeneration: 2 });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });
});

describe('a modification EC2 keeps `modifying` for longer than the maximum operation age, then fails', () => {
  it('is retried, its hours in EC2 no part of the age: the first failure is one attempt, not a give-up', async () => {
    const h = await iopsModification({ modify: 8 * HOUR, optimize: 1000 });
    await run(h, 7 * HOUR, 5 * MINUTE);
    h.ebs.failModification((await volumeOf(h)).ebsVolumeId!, 'The volume could not be modified.');
    // The next check (at most 10 minutes on) sees it failed.
    await run(h, 15 * MINUTE, MINUTE);

    expect(h.ebs.calls.ModifyVolume).toBe(2);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'modifying' }, failedModifications: { count: 1 } });
  });
});

describe('a look at a modification EC2 keeps `modifying` for longer than the maximum operation age that fails', () => {
  it.each(['DescribeVolumes', 'DescribeVolumesModifications'] as const)('(%s) is one failed attempt, not a give-up: the record follows the modification to its end', async (action) => {
    const h = await iopsModification({ modify: 8 * HOUR, optimize: 1000 });
    await run(h, 7 * HOUR, 5 * MINUTE);
    h.ebs.failNext(action, new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
    await run(h, 15 * MINUTE, MINUTE);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'modifying', operationStartedAt: new Date(START + 10_000).toISOString() });

    await run(h, 2 * HOUR, 5 * MINUTE);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 }, observedGeneration: 2 });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });
});

describe('looks at a modification EC2 keeps `modifying` for hours that fail now and then', () => {
  it('do not add up to the attempt budget: each look that sees it under way ends their run, and the record follows it to its end', async () => {
    const h = await iopsModification({ modify: 10 * HOUR, optimize: 1000 });
    const states = new Set<string>();
    // One failed DescribeVolumesModifications an hour, 9 in all: more than the 8 attempts.
    for (let hour = 0; hour < 9; hour++) {
      await run(h, 45 * MINUTE, 5 * MINUTE);
      h.ebs.failNext('DescribeVolumesModifications', new ProviderError('transient', 'InternalError', 'An internal error has occurred'));
      await run(h, 15 * MINUTE, MINUTE);
      states.add((await volumeOf(h)).status.state);
    }
    expect([...states]).toEqual(['modifying']);

    await run(h, 2 * HOUR, 5 * MINUTE);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { iops: 4000 }, observedGeneration: 2 });
    expect(h.ebs.calls.ModifyVolume).toBe(1);
  });
});

describe('a client retry of a volume whose modification EC2 failed until the attempt budget ran out', () => {
  it('starts the modification over with a fresh attempt budget, as every retry does: one more failure does not put it back in error', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    const failing = await failingModifications(h);
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    for (let i = 0; i < 6 * 60 && (await volumeOf(h)).status.state !== 'error'; i++) await run(h, MINUTE);
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'ModificationFailed', attempts: 8 });
    const modifies = h.ebs.calls.ModifyVolume;

    // EC2's trouble passes, but for one more failure; the client retries.
    failing.remaining = 1;
    await new VolumeService({ store: h.store, clock: h.clock }).retryVolume('data-1');
    await h.watch();
    for (let i = 0; i < 60 && (await volumeOf(h)).observed?.sizeGiB !== 20 && (await volumeOf(h)).status.state !== 'error'; i++) await run(h, MINUTE);
    expect(h.ebs.calls.ModifyVolume - modifies).toBeGreaterThanOrEqual(2);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 20 } });
  });
});

describe('failed modifications counted toward a target the client then gives up on', () => {
  it('are forgotten once EC2 holds the spec (the client put it back): asking for that target again later gets the whole attempt budget', async () => {
    const h = harness({ ebsTimings: { modify: 1000, optimize: 1000 } });
    const failing = await failingModifications(h);
    const spec = (await volumeOf(h)).spec;
    await h.store.update<VolumeRecord>(KEY, { spec: { ...spec, sizeGiB: 20 }, generation: 2 });
    for (let i = 0; i < 6 * 60 && ((await volumeOf(h)).failedModifications?.count ?? 0) < 6; i++) await run(h, MINUTE);
    expect((await volumeOf(h)).failedModifications?.count).toBe(6);

    // The client gives up on 20 GiB: the spec is back at what EC2 holds.
    await h.store.update<VolumeRecord>(KEY, { spec, generation: 3 });
    await run(h, 10 * MINUTE);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observedGeneration: 3 });

    // A day later it asks for 20 GiB again; EC2 fails it a few times more, then makes it.
    await h.clock.advance(24 * HOUR);
    failing.remaining = 3;
    const modifies = h.ebs.calls.ModifyVolume;
    await h.store.update<VolumeRecord>(KEY, { spec: { ...spec, sizeGiB: 20 }, generation: 4 });
    for (let i = 0; i < 6 * 60 && (await volumeOf(h)).observed?.sizeGiB !== 20 && (await volumeOf(h)).status.state !== 'error'; i++) await run(h, MINUTE);
    expect(h.ebs.calls.ModifyVolume - modifies).toBe(4);
    expect(await volumeOf(h)).toMatchObject({ status: { state: 'available' }, observed: { sizeGiB: 20 }, observedGeneration: 4 });
  });
});

describe('a modification whose ModifyVolume EC2 keeps failing (an internal error) while the volume is attached and detached in turn', () => {
  it('ends in error at the attempt budget: the looks of its attachments, which bring in-use / available in line, do not start its attempts over', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await run(h, 10_000, 1000);
    let modifies = 0;
    h.ebs.modifyVolume = async () => {
      modifies++;
      throw new ProviderError('transient', 'InternalError', 'An internal error has occurred');
    };
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    const states = new Set<string>();
    for (let i = 0; i < 20 && (await volumeOf(h)).status.state !== 'error'; i++) {
      await h.store.create(newAttachment('data-1'));
      await run(h, 30_000, 1000);
      states.add((await volumeOf(h)).status.state);
      await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
      await run(h, 30_000, 1000);
    }
    expect(states).toContain('in-use');
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'InternalError', attempts: 8 });
    expect(modifies).toBe(8);
  });
});


describe('a ModifyVolume EC2 keeps failing (an internal error) while its volume is attached and detached, and looked at', () => {
  it('is tried again only when its backoff ends (`nextAttemptAt`): the looks that come sooner make no call', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await run(h, 10_000, 1000);
    const calls: number[] = [];
    h.ebs.modifyVolume = async () => {
      calls.push(h.clock.now());
      throw new ProviderError('transient', 'InternalError', 'An internal error has occurred');
    };
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    // The next attempt each failure names, as the status shows it.
    const due: number[] = [];
    for (let second = 0; second < 300 && (await volumeOf(h)).status.state !== 'error'; second++) {
      // An attachment made and removed in turn (the watcher's and the executor's looks at the volume), and the reconciler's look.
      if (second % 20 === 0) await h.store.create(newAttachment('data-1'));
      if (second % 20 === 10) await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
      if (second % 7 === 0) await h.queue.send([{ message: { op: 'modify-volume', key: KEY, nudge: true }, delaySeconds: 0 }]);
      await h.watch();
      await h.drain();
      const next = (await volumeOf(h)).status.nextAttemptAt;
      if (next !== undefined && Date.parse(next) !== due.at(-1)) due.push(Date.parse(next));
      await h.clock.advance(1000);
    }
    expect((await volumeOf(h)).status).toMatchObject({ state: 'error', code: 'InternalError', attempts: 8 });
    expect(calls).toHaveLength(8);
    // Each at the time the failure before it named (a second late when its attachment's check wrote the volume in the same batch).
    expect(calls.slice(1).map((at, i) => (at - due[i]!) / 1000).filter((late) => late < 0 || late > 1)).toEqual([]);
  });

  it("a client's change of the spec during the backoff is acted on at once", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await run(h, 10_000, 1000);
    const sizes: number[] = [];
    h.ebs.modifyVolume = async (request) => {
      sizes.push(request.sizeGiB ?? 0);
      throw new ProviderError('transient', 'InternalError', 'An internal error has occurred');
    };
    const volume = await volumeOf(h);
    await h.store.update<VolumeRecord>(KEY, { spec: { ...volume.spec, sizeGiB: 20 }, generation: 2 });
    await run(h, 30_000, 1000);
    const waiting = await volumeOf(h);
    expect(Date.parse(waiting.status.nextAttemptAt!)).toBeGreaterThan(h.clock.now() + 10_000);
    const tried = sizes.length;
    await h.store.update<VolumeRecord>(KEY, { spec: { ...waiting.spec, sizeGiB: 30 }, generation: 3 });
    await h.watch();
    await h.drain();
    expect(sizes.slice(tried)).toEqual([30]);
  });
});

describe('a volume deleted while EC2 modifies it, whose modification EC2 then fails', () => {
  it('is deleted once the failure is seen: the failed modification, whatever failed before it, holds back no delete and puts nothing in error', async () => {
    const h = await iopsModification({ modify: HOUR, optimize: 1000 });
    const volume = await volumeOf(h);
    // Seven modifications toward this target failed before: an eighth, counted, would spend the attempt budget.
    await h.store.update<VolumeRecord>(KEY, { life: 'dying', failedModifications: { target: { sizeGiB: 10, volumeType: 'gp3', iops: 4000 }, count: 7 } });
    await h.watch();
    h.ebs.failModification(volume.ebsVolumeId!, 'The volume could not be modified.');
    const states = new Set<string>();
    for (let i = 0; i < 15 && (await h.store.get(KEY)); i++) {
      await run(h, MINUTE, 1000);
      const status = (await h.store.get(KEY))?.status;
      if (status) states.add(`${status.state}/${status.code ?? ''}`);
    }
    expect(await h.store.get(KEY)).toBeUndefined();
    expect([...states].filter((state) => state.startsWith('error') || state.endsWith('ModificationFailed'))).toEqual([]);
    expect(h.ebs.volume(volume.ebsVolumeId!)).toBeUndefined();
  });
});
