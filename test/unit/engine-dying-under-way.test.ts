/**
 * A volume made dying while EC2 is at an operation on it (a modification, a creation), and while
 * its attachments detach: the operation's chain of progress checks goes on through the wait for
 * the attachments, so its end is seen and the delete follows with no reconciler pass.
 */
import { describe, expect, it } from 'vitest';
import { CreateVolumeRequestSchema, PatchVolumeRequestSchema } from '../../lib/api/schemas.js';
import { VolumeService } from '../../lib/api/service.js';
import { planVolume } from '../../lib/engine/planner.js';
import { AZ, harness, INSTANCE, newAttachment, newVolume, START, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;

/** The stream and the queue, delivered every second for `totalMs`; no reconciler runs. */
async function run(h: ReturnType<typeof harness>, totalMs: number): Promise<void> {
  for (let spent = 0; spent < totalMs; spent += 1000) {
    await h.watch();
    await h.drain();
    await h.watch();
    await h.clock.advance(1000);
  }
}

describe('a dying volume whose operation EC2 has under way while its attachments detach', () => {
  it('a modification that ends while an attachment still detaches is seen ended, and the volume deleted', async () => {
    // The first check of the modification (15 s after it) comes while the detach still takes its 30 s.
    const h = harness({ ebsTimings: { detach: 30_000, modify: 60_000, optimize: 60_000 } });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await service.createVolume(CreateVolumeRequestSchema.parse({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ }, attachTo: { instanceId: INSTANCE } }));
    await run(h, 20_000);
    expect(h.store.all().map((r) => r.status.state).sort()).toEqual(['attached', 'in-use']);
    const ebsVolumeId = h.ebs.volumes()[0]!.ebsVolumeId;

    await service.patchVolume('data-1', PatchVolumeRequestSchema.parse({ iops: 4000 }));
    await run(h, 3000);
    await service.deleteVolume('data-1');
    // The detach takes 30 s, the modification 2 minutes: both done well within 10 minutes.
    await run(h, 10 * MINUTE);

    expect(h.store.all().map((r) => `${r.kind} ${r.life} ${r.status.state}: ${r.status.message ?? ''}`)).toEqual([]);
    expect(h.ebs.volume(ebsVolumeId)?.state ?? 'deleted').toBe('deleted');
    expect(h.queued()).toEqual([]);
  });
});

describe('a dying volume whose modification ends while its attachment still detaches', () => {
  it('says that it waits for the attachment, then is deleted once it is detached', async () => {
    // The modification is done (optimizing) after 20 s, the detach after 2 minutes.
    const h = harness({ ebsTimings: { detach: 2 * MINUTE, modify: 20_000, optimize: MINUTE } });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await service.createVolume(CreateVolumeRequestSchema.parse({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ }, attachTo: { instanceId: INSTANCE } }));
    await run(h, 20_000);
    await service.patchVolume('data-1', PatchVolumeRequestSchema.parse({ iops: 4000 }));
    await run(h, 3000);
    await service.deleteVolume('data-1');
    await run(h, MINUTE);

    const volume = h.store.all().find((r) => r.kind === 'volume');
    expect(volume?.status).toMatchObject({ state: 'in-use', message: 'waiting for 1 attachment(s) to detach before deleting' });
    expect(h.store.all().find((r) => r.kind === 'attachment')?.status.state).toBe('detaching');

    await run(h, 3 * MINUTE);
    expect(h.store.all()).toEqual([]);
  });
  it('a check of the modification that reaches the volume deleted before its attachments are made dying goes on with its chain while they detach', async () => {
    const h = harness({ ebsTimings: { detach: 30_000, modify: 60_000, optimize: 60_000 } });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await service.createVolume(CreateVolumeRequestSchema.parse({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ }, attachTo: { instanceId: INSTANCE } }));
    await run(h, 20_000);
    const ebsVolumeId = h.ebs.volumes()[0]!.ebsVolumeId;
    await service.patchVolume('data-1', PatchVolumeRequestSchema.parse({ iops: 4000 }));
    await run(h, 3000);
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('modifying');
    const started = volume.status.operationStartedAt!;
    const chain = () => h.queue.pending().filter((p) => p.message.op === 'check-volume' && p.message.chainOf === started && !p.message.nudge);
    expect(chain()).toHaveLength(1);

    // The chain's next check falls due just after the client's delete, before the watcher has the delete's change.
    await h.clock.advance(chain()[0]!.visibleAt - h.clock.now());
    await service.deleteVolume('data-1');
    await h.drain();
    expect(h.store.all().map((r) => `${r.kind} ${r.life}`).sort()).toEqual(['attachment dying', 'volume dying']);
    // The check made the attachment dying and its chain goes on: a next check of the same modification is queued.
    expect(chain()).toHaveLength(1);

    // No reconciler runs: the detach (30 s) and the modification (2 minutes) end, and the delete follows.
    await run(h, 10 * MINUTE);
    expect(h.store.all().map((r) => `${r.kind} ${r.life} ${r.status.state}: ${r.status.message ?? ''}`)).toEqual([]);
    expect(h.ebs.volume(ebsVolumeId)?.state ?? 'deleted').toBe('deleted');
    expect(h.queued()).toEqual([]);
  });
  it('a look (no check of the chain) that makes the attachments dying leaves the chain to its own check: no second one', async () => {
    const h = harness({ ebsTimings: { detach: 30_000, modify: 60_000, optimize: 60_000 } });
    const service = new VolumeService({ store: h.store, clock: h.clock });
    await service.createVolume(CreateVolumeRequestSchema.parse({ volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: AZ }, attachTo: { instanceId: INSTANCE } }));
    await run(h, 20_000);
    await service.patchVolume('data-1', PatchVolumeRequestSchema.parse({ iops: 4000 }));
    await run(h, 3000);
    const started = (await volumeOf(h)).status.operationStartedAt!;
    const checks = () => h.queue.pending().filter((p) => p.message.op === 'check-volume' && p.message.key.kind === 'volume');
    expect(checks().map((p) => p.message.chainOf)).toEqual([started]);

    await service.deleteVolume('data-1');
    h.changes.splice(0);
    await h.executor.run(h.batchOf({ op: 'check-volume', key: { kind: 'volume', volumeId: 'data-1' }, nudge: true }));
    expect(h.store.all().map((r) => `${r.kind} ${r.life}`).sort()).toEqual(['attachment dying', 'volume dying']);
    expect(checks().map((p) => p.message.chainOf)).toEqual([started]);
  });
});

describe('planning a dying volume that waits for its attachments', () => {
  const detaching = newAttachment('data-1', { life: 'dying', device: '/dev/sdf', status: { state: 'detaching', attempts: 0, updatedAt: new Date(START).toISOString(), operationStartedAt: new Date(START).toISOString() } });
  const dying = (state: 'creating' | 'modifying' | 'in-use') =>
    newVolume('data-1', { life: 'dying', ebsVolumeId: 'vol-1', status: { state, attempts: 0, updatedAt: new Date(START).toISOString(), ...(state === 'in-use' ? {} : { operationStartedAt: new Date(START).toISOString() }) } });

  it.each(['creating', 'modifying'] as const)('%s in EC2: its checks go on while the attachments detach', (state) => {
    expect(planVolume(dying(state), [detaching], START)).toMatchObject({ type: 'operation', op: 'check-volume' });
  });

  it('at rest: it waits for them', () => {
    expect(planVolume(dying('in-use'), [detaching], START)).toEqual({ type: 'wait', reason: 'waiting for 1 attachment(s) to detach before deleting' });
  });
});
