import { describe, expect, it } from 'vitest';
import type { Status, VolumeRecord, VolumeState } from '../../lib/domain/records.js';
import { MODIFICATION_FAILED_CODE, SPEC_REJECTED_CODE, VOLUME_RECORD_REMOVED_CODE } from '../../lib/engine/status.js';
import { changesWithoutCall, markAttachmentsDying, type DecisionWithoutCall } from '../../lib/engine/without-call.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { START, attachmentKey, newAttachment, newVolume } from './engine-fixtures.js';

const NOW = START + 60_000;
const at = (ms: number) => new Date(ms).toISOString();

function volumeIn(status: Partial<Status<VolumeState>>, extra: Partial<VolumeRecord> = {}): VolumeRecord {
  return newVolume('data-1', { ebsVolumeId: 'vol-1', observedGeneration: 1, status: { state: 'available', attempts: 0, updatedAt: at(START), ...status }, ...extra });
}

describe('changesWithoutCall', () => {
  it('wait: the reason as message, written once', () => {
    const attachment = newAttachment('data-1');
    const changes = changesWithoutCall(attachment, { type: 'wait', reason: 'waiting for volume data-1 to become available' }, NOW);
    expect(changes).toEqual({ status: { state: 'pending', attempts: 0, message: 'waiting for volume data-1 to become available', updatedAt: at(NOW) } });
    expect(changesWithoutCall({ ...attachment, status: changes!.status! }, { type: 'wait', reason: 'waiting for volume data-1 to become available' }, NOW + 1000)).toBeUndefined();
  });

  it('wait: failed attempts stay, unless only a client retry of the other record ends the wait', () => {
    const failed = newAttachment('data-1', { status: { state: 'pending', code: 'InvalidVolume.NotFound', message: 'not found', attempts: 2, updatedAt: at(START) } });
    expect(changesWithoutCall(failed, { type: 'wait', reason: 'waiting for volume data-1 to become available' }, NOW)?.status).toMatchObject({ attempts: 2 });
    const reason = 'volume data-1 is in error: VolumeNotFound; the attach waits until the volume is retried';
    expect(changesWithoutCall(failed, { type: 'wait', reason, attemptsEnd: true }, NOW)).toEqual({ status: { state: 'pending', attempts: 0, message: reason, updatedAt: at(NOW) } });
  });

  it('cascade-dying: the volume waits for its attachments, keeping the code of its error; nothing when it already says so', () => {
    const failed = volumeIn({ state: 'error', code: 'InternalError', message: 'boom', attempts: 8 }, { life: 'dying' });
    const decision: DecisionWithoutCall = { type: 'cascade-dying', attachments: [attachmentKey('data-1')], reason: 'detaching 1 attachment(s) before deleting' };
    const changes = changesWithoutCall(failed, decision, NOW);
    expect(changes).toEqual({ status: { state: 'error', code: 'InternalError', message: 'detaching 1 attachment(s) before deleting', attempts: 8, updatedAt: at(NOW) } });
    expect(changesWithoutCall({ ...failed, status: changes!.status! }, decision, NOW + 1000)).toBeUndefined();
  });

  it('invalid-spec: the state kept, the reasons under the rejection code; nothing when already rejected for them', () => {
    const volume = volumeIn({ state: 'in-use' });
    const decision: DecisionWithoutCall = { type: 'invalid-spec', reason: 'spec.sizeGiB: volumes only grow' };
    const changes = changesWithoutCall(volume, decision, NOW);
    expect(changes).toEqual({ status: { state: 'in-use', code: SPEC_REJECTED_CODE, message: 'spec.sizeGiB: volumes only grow', attempts: 0, updatedAt: at(NOW) } });
    expect(changesWithoutCall({ ...volume, status: changes!.status! }, decision, NOW + 1000)).toBeUndefined();
  });

  it('volume-record-removed: an attachment that may be attached goes to error under its code, once; a volume is left as it is', () => {
    const attached = newAttachment('data-1', { device: '/dev/sdf', status: { state: 'attached', attempts: 0, updatedAt: at(START) } });
    const decision: DecisionWithoutCall = { type: 'volume-record-removed', reason: 'volume record data-1 was removed from the table' };
    const changes = changesWithoutCall(attached, decision, NOW);
    expect(changes).toEqual({ status: { state: 'error', code: VOLUME_RECORD_REMOVED_CODE, message: 'volume record data-1 was removed from the table', attempts: 0, updatedAt: at(NOW) } });
    expect(changesWithoutCall({ ...attached, status: changes!.status! }, decision, NOW + 1000)).toBeUndefined();
    expect(changesWithoutCall(volumeIn({ message: 'created' }), decision, NOW)).toBeUndefined();
  });

  it('cooldown: the wait shown in the status (the state kept) when it does not show it, once; a modification start in the future becomes now', () => {
    const HOUR = 3_600_000;
    const startedAt = [NOW - 4 * HOUR, NOW - 3 * HOUR, NOW - 2 * HOUR, NOW - HOUR].map(at);
    const endsAt = NOW - 4 * HOUR + 24 * HOUR + 5_000;
    const volume = volumeIn({ state: 'in-use', message: 'created' }, { lastModificationStartedAt: startedAt[3]!, earlierModificationStarts: startedAt.slice(0, 3) });
    const decision: DecisionWithoutCall = { type: 'cooldown', op: 'modify-volume', atMs: endsAt, reason: 'waiting' };
    const changes = changesWithoutCall(volume, decision, NOW);
    expect(changes).toEqual({
      status: {
        state: 'in-use',
        code: 'VolumeModificationRateExceeded',
        message: `EC2 allows 4 modifications per volume in any 24 hours; trying again at ${at(endsAt)}`,
        attempts: 0,
        nextAttemptAt: at(endsAt),
        updatedAt: at(NOW),
      },
    });
    expect(changesWithoutCall({ ...volume, status: changes!.status! }, decision, NOW + 1000)).toBeUndefined();

    // Starts in the future (the latest, and one before it): now in their place, the others kept.
    const inTenDays = at(NOW + 10 * 24 * HOUR);
    const ahead = { ...volume, status: changes!.status!, lastModificationStartedAt: inTenDays, earlierModificationStarts: [startedAt[1]!, inTenDays, startedAt[2]!] };
    expect(changesWithoutCall(ahead, { ...decision, atMs: NOW - 3 * HOUR + 24 * HOUR + 5_000 }, NOW)).toEqual({
      lastModificationStartedAt: at(NOW),
      earlierModificationStarts: [startedAt[1], startedAt[2], at(NOW)],
      status: expect.objectContaining({ nextAttemptAt: at(NOW - 3 * HOUR + 24 * HOUR + 5_000) }),
    });
    // Within EC2's clock slack: as it is.
    expect(changesWithoutCall({ ...volume, status: changes!.status!, lastModificationStartedAt: at(NOW + 5_000) }, decision, NOW)).toBeUndefined();
  });

  it('none: nothing for a settled record', () => {
    expect(changesWithoutCall(volumeIn({ message: 'created' }), { type: 'none', reason: 'volume available' }, NOW)).toBeUndefined();
    expect(changesWithoutCall(newAttachment('data-1', { status: { state: 'attached', attempts: 0, updatedAt: at(START) } }), { type: 'none', reason: 'attached' }, NOW)).toBeUndefined();
  });

  it('none: a rejection the spec no longer earns goes, and so does a wait it no longer needs', () => {
    const rejected = volumeIn({ code: SPEC_REJECTED_CODE, message: 'spec.sizeGiB: volumes only grow' });
    expect(changesWithoutCall(rejected, { type: 'none', reason: 'volume available' }, NOW)).toEqual({ status: { state: 'available', attempts: 0, updatedAt: at(NOW) } });
    const cooling = volumeIn({ code: 'VolumeModificationRateExceeded', message: 'trying again later', nextAttemptAt: at(START + 3_600_000) });
    expect(changesWithoutCall(cooling, { type: 'none', reason: 'volume available' }, NOW)).toEqual({ status: { state: 'available', attempts: 0, updatedAt: at(NOW) } });
  });

  it('none: a volume set back to alive while dying no longer says it waits for its attachments before deleting', () => {
    for (const message of [
      'waiting for 2 attachment(s) to detach before deleting',
      'detaching 2 attachment(s) before deleting',
      // Its attachments never attached (the planner's messages then).
      'removing 2 never attached attachment(s) before deleting',
      'waiting to remove 2 never attached attachment(s) before deleting',
    ]) {
      expect(changesWithoutCall(volumeIn({ state: 'in-use', message }), { type: 'none', reason: 'volume in-use' }, NOW)).toEqual({ status: { state: 'in-use', attempts: 0, updatedAt: at(NOW) } });
      // In error, the code of its failure stays.
      const failed = volumeIn({ state: 'error', code: 'InternalError', message, attempts: 8 });
      expect(changesWithoutCall(failed, { type: 'none', reason: 'terminal error' }, NOW)).toEqual({ status: { state: 'error', code: 'InternalError', attempts: 8, updatedAt: at(NOW) } });
    }
  });

  it('none with observedGeneration: the generation alone, the status (and its updatedAt) kept; nothing once caught up', () => {
    const volume = volumeIn({ message: 'created' }, { generation: 2 });
    const decision: DecisionWithoutCall = { type: 'none', reason: 'volume available; EC2 already holds the spec', observedGeneration: 2 };
    expect(changesWithoutCall(volume, decision, NOW)).toEqual({ observedGeneration: 2 });
    expect(changesWithoutCall({ ...volume, observedGeneration: 2 }, decision, NOW)).toBeUndefined();
  });

  it('none: the modifications EC2 failed go once EC2 holds the spec, but a volume in error keeps them (what its error counted) until its retry', () => {
    const failed = { target: { sizeGiB: 20, volumeType: 'gp3' as const }, count: 6 };
    const extra = { observed: { sizeGiB: 10, volumeType: 'gp3' as const }, failedModifications: failed };
    expect(changesWithoutCall(volumeIn({ state: 'in-use', message: 'created' }, extra), { type: 'none', reason: 'volume in-use' }, NOW)).toEqual({ failedModifications: null });
    const givenUp = volumeIn({ state: 'error', code: MODIFICATION_FAILED_CODE, message: 'The volume could not be modified.', attempts: 6 }, extra);
    expect(changesWithoutCall(givenUp, { type: 'none', reason: 'terminal error' }, NOW)).toBeUndefined();
    // EC2 does not hold the spec (it still asks for 20 GiB): what EC2 failed still counts.
    const grown = volumeIn({ state: 'available', message: 'created' }, { ...extra, spec: { ...newVolume('data-1').spec, sizeGiB: 20 } });
    expect(changesWithoutCall(grown, { type: 'none', reason: 'volume available' }, NOW)).toBeUndefined();
  });

  it('none with observedGeneration and a rejection the spec no longer earns: both', () => {
    const volume = volumeIn({ code: SPEC_REJECTED_CODE, message: 'spec.sizeGiB: volumes only grow' }, { generation: 3 });
    expect(changesWithoutCall(volume, { type: 'none', reason: 'volume available; EC2 already holds the spec', observedGeneration: 3 }, NOW)).toEqual({
      status: { state: 'available', attempts: 0, updatedAt: at(NOW) },
      observedGeneration: 3,
    });
  });
});

describe('markAttachmentsDying', () => {
  it('makes live attachments dying, leaves a dying one as it is, and skips one that is gone', async () => {
    const store = new MemoryRecordStore();
    await store.create(newAttachment('data-1'));
    await store.create(newAttachment('data-2', { life: 'dying' }));
    await markAttachmentsDying(store, [attachmentKey('data-1'), attachmentKey('data-2'), attachmentKey('gone')]);
    expect(await store.get(attachmentKey('data-1'))).toMatchObject({ life: 'dying', version: 2 });
    expect(await store.get(attachmentKey('data-2'))).toMatchObject({ life: 'dying', version: 1 });
    expect(await store.get(attachmentKey('gone'))).toBeUndefined();
  });

  it('fails with the store when a write fails for another reason than its condition', async () => {
    const store = new MemoryRecordStore();
    await store.create(newAttachment('data-1'));
    store.update = () => Promise.reject(new Error('table unavailable'));
    await expect(markAttachmentsDying(store, [attachmentKey('data-1')])).rejects.toThrow('table unavailable');
  });
});
