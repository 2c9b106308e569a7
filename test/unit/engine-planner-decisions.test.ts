import { describe, expect, it } from 'vitest';
import type { VolumeRecord, VolumeState } from '../../lib/domain/records.js';
import {
  attachPrerequisites,
  createUnanswered,
  detachesByTags,
  detachesPastInvalidRecord,
  detachingByTags,
  firstActionOf,
  givenUpWithDevice,
  modificationNeeded,
  planAttachment,
  planVolume,
  saysWaitingForAttachments,
  specRejection,
  tagCalls,
  tagsNeeded,
  volumeRecordWrittenSince,
  waitsForInvalidVolume,
  waitsForVolumeInUse,
} from '../../lib/engine/planner.js';
import { VOLUME_RECORD_REMOVED_CODE } from '../../lib/engine/status.js';
import { T, attachment, created, volume } from './planner-fixtures.js';

const NOW = Date.parse(T);
const at = (ms: number) => new Date(ms).toISOString();
const MINUTE = 60_000;

const spec = (extra: Partial<VolumeRecord['spec']> = {}) => ({ sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a', ...extra });

describe('spec rejection and tags', () => {
  it('a dying volume has no spec rejection: its spec no longer matters', () => {
    const shrink = { ...created, spec: spec({ sizeGiB: 5 }) };
    expect(specRejection(volume('available', shrink))).toBeDefined();
    expect(specRejection(volume('available', { ...shrink, life: 'dying' }))).toBeUndefined();
  });

  it('a tag change is made although the spec asks for a size EBS cannot make', () => {
    const v = volume('available', { ...created, spec: spec({ sizeGiB: 5, tags: { team: 'a' } }) });
    expect(planVolume(v, [], NOW)).toEqual({ type: 'operation', op: 'tag-volume', reason: 'tags changed' });
  });

  it('tags are needed when a CreateTags whose result is not recorded may have set keys, even with the spec held as observed', () => {
    const v = volume('available', { ...created, tagKeysSet: ['team'] });
    expect(tagsNeeded(volume('available', created))).toBe(false);
    expect(tagsNeeded(v)).toBe(true);
  });

  it('no tags are needed of a volume without an EC2 volume', () => {
    expect(tagsNeeded(volume('pending', { spec: spec({ tags: { team: 'a' } }) }))).toBe(false);
  });

  it('tagCalls removes before it sets', () => {
    expect(tagCalls({ a: '1' }, { b: '2' })).toEqual([
      { action: 'DeleteTags', keys: ['a'] },
      { action: 'CreateTags', tags: { b: '2' } },
    ]);
    expect(tagCalls({ a: '1' }, { a: '1' })).toEqual([]);
  });

  it('a tag change whose unrecorded CreateTags may have set a key the client dropped since starts with DeleteTags', () => {
    const v = volume('available', { ...created, spec: spec({ tags: { team: 'a' } }), tagKeysSet: ['env'] });
    expect(firstActionOf('tag-volume', v)).toBe('DeleteTags');
    expect(firstActionOf('tag-volume', volume('available', { ...created, spec: spec({ tags: { team: 'a' } }) }))).toBe('CreateTags');
  });
});

describe('modifications whose answer was lost', () => {
  const lost = { ...created, modificationSentAt: T };

  it('a ModifyVolume whose answer was lost is looked at before the spec is taken as held', () => {
    expect(planVolume(volume('available', lost), [], NOW)).toEqual({
      type: 'operation',
      op: 'modify-volume',
      reason: 'a ModifyVolume whose answer was lost may be under way; looking before taking the spec as held',
    });
  });

  it('that look takes no rate token; a modification needed takes ModifyVolume', () => {
    expect(firstActionOf('modify-volume', volume('available', lost))).toBeUndefined();
    expect(firstActionOf('modify-volume', volume('available', { ...lost, spec: spec({ sizeGiB: 20 }) }))).toBe('ModifyVolume');
  });
});

describe('createUnanswered', () => {
  it('holds for a record an earlier version sent a CreateVolume for without recording it', () => {
    expect(createUnanswered(volume('creating', { availabilityZone: 'eu-west-1a', observedGeneration: 1 }))).toBe(true);
    expect(createUnanswered(volume('creating'))).toBe(false);
  });
});

describe('a dying volume waiting for its attachments', () => {
  const dying = (state: VolumeState, extra: Partial<VolumeRecord> = {}) => volume(state, { ...created, life: 'dying', ...extra });

  it('counts only the attachments with something to detach: detached ones are not', () => {
    const atts = [attachment('detached', { life: 'dying' }), attachment('attached', { life: 'dying', device: '/dev/sdf', instanceId: 'i-2' })];
    expect(planVolume(dying('in-use'), atts, NOW)).toEqual({ type: 'wait', reason: 'waiting for 1 attachment(s) to detach before deleting' });
  });

  it('names every attachment it removes when none was attached, dying or not yet', () => {
    const atts = [attachment('pending'), attachment('pending', { life: 'dying', instanceId: 'i-2' })];
    const decision = planVolume(dying('available'), atts, NOW);
    expect(decision).toMatchObject({ type: 'cascade-dying', reason: 'removing 2 never attached attachment(s) before deleting' });
  });

  it('while being created with an EC2 volume id, its checks go on', () => {
    expect(planVolume(dying('creating'), [attachment('pending', { life: 'dying' })], NOW)).toEqual({
      type: 'operation',
      op: 'check-volume',
      reason: 'waiting for the creation to finish before deleting; 1 attachment(s) still to go',
    });
  });

  it('while being created without an EC2 volume id, nothing can be looked at: it waits', () => {
    const v = volume('creating', { life: 'dying' });
    expect(planVolume(v, [attachment('pending', { life: 'dying' })], NOW)).toEqual({
      type: 'wait',
      reason: 'waiting to remove 1 never attached attachment(s) before deleting',
    });
  });

  it('saysWaitingForAttachments recognises both messages', () => {
    expect(saysWaitingForAttachments({ state: 'available', attempts: 0, updatedAt: T, message: 'waiting for 1 attachment(s) to detach before deleting' })).toBe(true);
    expect(saysWaitingForAttachments({ state: 'available', attempts: 0, updatedAt: T, message: 'removing 2 never attached attachment(s) before deleting' })).toBe(true);
    expect(saysWaitingForAttachments({ state: 'available', attempts: 0, updatedAt: T, message: 'deleting' })).toBe(false);
    expect(saysWaitingForAttachments({ state: 'available', attempts: 0, updatedAt: T })).toBe(false);
  });
});

describe('attachments waiting for their volume', () => {
  it('a wait for a volume in error ends the attach attempts until the volume is retried', () => {
    const decision = planAttachment(attachment('pending'), volume('error', { ...created, status: { state: 'error', attempts: 3, updatedAt: T, code: 'VolumeError' } }));
    expect(decision).toEqual({ type: 'wait', reason: 'volume data-1 is in error: VolumeError; the attach waits until the volume is retried', attemptsEnd: true });
  });

  it('a pending attachment that kept its device waits, without a look, for a volume with no EC2 volume yet', () => {
    expect(planAttachment(attachment('pending', { device: '/dev/sdf' }), volume('creating'))).toEqual({
      type: 'wait',
      reason: 'waiting for volume data-1 to become available',
    });
  });

  it('waitsForInvalidVolume speaks only for a live pending attachment that attached nothing', () => {
    expect(waitsForInvalidVolume(attachment('pending'))).toMatchObject({ type: 'wait' });
    expect(waitsForInvalidVolume(attachment('pending', { device: '/dev/sdf' }))).toBeUndefined();
    expect(waitsForInvalidVolume(attachment('pending', { life: 'dying' }))).toBeUndefined();
    expect(waitsForInvalidVolume(attachment('attached'))).toBeUndefined();
  });

  it('waitsForVolumeInUse holds only for a live single-attach volume in use', () => {
    const inUse = volume('in-use', created);
    expect(waitsForVolumeInUse(attachment('pending'), inUse)).toBe(true);
    expect(waitsForVolumeInUse(attachment('pending'), { ...inUse, spec: spec({ multiAttach: true }) })).toBe(false);
    expect(waitsForVolumeInUse(attachment('pending'), { ...inUse, life: 'dying' })).toBe(false);
    expect(waitsForVolumeInUse(attachment('pending'), volume('in-use'))).toBe(false);
  });
});

describe('volume record written again', () => {
  it('an attach recorded for this very record decides, whatever the clocks say', () => {
    // The record's createdAt is after the attachment's update (a client clock behind), but the attach recorded it.
    const v = volume('in-use', { ...created, createdAt: at(NOW + MINUTE) });
    expect(volumeRecordWrittenSince(attachment('attached', { volumeCreatedAt: v.createdAt }), v, T)).toBe(false);
    expect(volumeRecordWrittenSince(attachment('attached'), v, T)).toBe(true);
  });

  it('a dying attachment that may not be attached is not detached by its tags', () => {
    const v = volume('available', { ...created, createdAt: at(NOW + MINUTE) });
    const a = attachment('pending', { life: 'dying', volumeCreatedAt: T });
    expect(detachesByTags(a, v)).toBe(false);
    expect(planAttachment(a, v)).toEqual({ type: 'remove', reason: 'never attached; removed without an EC2 call' });
  });

  it('detachesPastInvalidRecord holds only for a dying attachment', () => {
    expect(detachesPastInvalidRecord(attachment('attached', { life: 'dying', volumeCreatedAt: T }), 'other')).toBe(true);
    expect(detachesPastInvalidRecord(attachment('attached', { volumeCreatedAt: T }), 'other')).toBe(false);
  });

  it('a detach is by tags once the record was written again since the detach began, even before its last update', () => {
    const a = attachment('detaching', { status: { state: 'detaching', attempts: 0, updatedAt: at(NOW + 2 * MINUTE), operationStartedAt: T } });
    const v = volume('available', { ...created, createdAt: at(NOW + MINUTE) });
    expect(detachingByTags(a, v)).toBe(true);
    expect(detachingByTags(a, volume('available', created))).toBe(false);
  });

  it('givenUpWithDevice excludes an attachment whose volume record was removed', () => {
    const error = (code?: string) => attachment('error', { device: '/dev/sdf', status: { state: 'error', attempts: 3, updatedAt: T, ...(code ? { code } : {}) } });
    expect(givenUpWithDevice(error(), volume('available', created))).toBe(true);
    expect(givenUpWithDevice(error(VOLUME_RECORD_REMOVED_CODE), volume('available', created))).toBe(false);
  });
});

describe('forced detach', () => {
  it('a forced call recorded with the detach start moved to it was accepted: checks only', () => {
    const a = attachment('detaching', {
      life: 'dying',
      device: '/dev/sdf',
      forceDetach: true,
      forceDetachSentAt: T,
      status: { state: 'detaching', attempts: 0, updatedAt: T, operationStartedAt: T },
    });
    expect(planAttachment(a, volume('in-use', created))).toEqual({ type: 'operation', op: 'check-attachment', reason: 'detach in progress' });
  });
});

describe('attachPrerequisites', () => {
  const inst = (state: string, availabilityZone = 'eu-west-1a') => ({ instanceId: 'i-1', state, availabilityZone }) as Parameters<typeof attachPrerequisites>[1];

  it('an instance shutting down is not worth waiting for', () => {
    expect(attachPrerequisites(volume('available', created), inst('shutting-down'), 'i-1')).toEqual({
      ok: false,
      code: 'IncorrectInstanceState',
      message: 'instance i-1 is shutting-down',
      terminal: true,
    });
  });

  it('a volume with no zone recorded is not refused for the instance zone', () => {
    expect(attachPrerequisites(volume('available', { ebsVolumeId: 'vol-1' }), inst('running', 'eu-west-1b'), 'i-1')).toEqual({ ok: true });
  });
});

describe('a CreateVolume whose answer was lost', () => {
  const request = { createRequest: { clientToken: 'token-1', availabilityZone: 'eu-west-1a', spec: spec() } };

  it('is repeated with its token, while creating or when retried', () => {
    expect(planVolume(volume('creating', request), [], Date.parse(T))).toEqual({
      type: 'operation',
      op: 'create-volume',
      reason: 'creation started; repeating the request with the same token',
    });
    expect(planVolume(volume('pending', request), [], Date.parse(T))).toEqual({
      type: 'operation',
      op: 'create-volume',
      reason: 'retrying; repeating the unanswered CreateVolume',
    });
  });
});

it('no ModifyVolume is asked for a volume with no EC2 volume', () => {
  expect(modificationNeeded(volume('available', { observed: created.observed, spec: spec({ sizeGiB: 20 }) }))).toBeUndefined();
  expect(modificationNeeded(volume('available', { ...created, spec: spec({ sizeGiB: 20 }) }))).toEqual({ ebsVolumeId: 'vol-1', sizeGiB: 20 });
});

it('detachingByTags holds only for a detach under way', () => {
  expect(detachingByTags(attachment('attached', { device: '/dev/sdf' }), undefined)).toBe(false);
  expect(detachingByTags(attachment('detaching', { device: '/dev/sdf' }), undefined)).toBe(true);
});

it('a zone mismatch names the volume zone, then the instance zone', () => {
  const inst = { instanceId: 'i-1', state: 'running', availabilityZone: 'eu-west-1b' } as Parameters<typeof attachPrerequisites>[1];
  expect(attachPrerequisites(volume('available', created), inst, 'i-1')).toMatchObject({
    code: 'InvalidVolume.ZoneMismatch',
    message: 'volume is in eu-west-1a, instance i-1 in eu-west-1b',
    terminal: true,
  });
});

it('a wait for a volume in error with no code sends the client to its status', () => {
  expect(planAttachment(attachment('pending'), volume('error', created))).toMatchObject({
    type: 'wait',
    reason: 'volume data-1 is in error: see its status; the attach waits until the volume is retried',
  });
});

it('a dying volume in error whose CreateVolume may have made a volume repeats it to learn the id', () => {
  const v = volume('error', { life: 'dying', createRequest: { clientToken: 'token-1', availabilityZone: 'eu-west-1a', spec: spec() } });
  expect(planVolume(v, [], Date.parse(T))).toEqual({
    type: 'operation',
    op: 'create-volume',
    reason: 'learning the id of a volume a CreateVolume may have made, to delete it',
  });
});

it('a tag operation with no tag change to make takes no rate token', () => {
  expect(firstActionOf('tag-volume', volume('available', { ...created, spec: spec({ tags: {} }) }))).toBeUndefined();
});
