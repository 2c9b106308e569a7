/**
 * Whether another attachment record may hold a single-attach volume attached is judged by one rule
 * (`heldByAnotherRecord`) for the watcher and for a dying volume's message. A record in `detached`
 * had its AttachVolume undone: it holds nothing. The system never writes that final state (it
 * removes a record that reaches it), but one written into the table by hand stands there until its
 * own change is judged; so does any record not valid, which holds nothing either until its
 * rejection writes it in error. While the only other record is such a one, a waiting attachment
 * whose volume is in use looks whether it is attached to its own instance (one DescribeVolumes), a
 * dying one that never sent AttachVolume looks before it is removed, and the dying volume's message
 * counts that one among those to detach.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, ProvisionerRecord } from '../../lib/domain/records.js';
import { heldByAnotherRecord, mayHoldItsVolume, planVolume } from '../../lib/engine/planner.js';
import { INSTANCE, OTHER_INSTANCE, attachmentKey, data1AttachedInConsole, data1Created, harness, newAttachment, newVolume } from './engine-fixtures.js';

const UPDATED_AT = '2026-01-01T00:00:00.000Z';

/** An attachment record of data-1 to the other instance, with its device, as written by hand. */
function otherRecord(status: Record<string, unknown>): AttachmentRecord {
  return { ...newAttachment('data-1', { instanceId: OTHER_INSTANCE, device: '/dev/sdg' }), status: { attempts: 0, updatedAt: UPDATED_AT, ...status } } as AttachmentRecord;
}

const DETACHED = otherRecord({ state: 'detached' });
/** Attached, but not valid (a negative attempt count). */
const NOT_VALID = otherRecord({ state: 'attached', attempts: -1 });

describe('another attachment record that holds nothing', () => {
  for (const [name, other] of [
    ['detached', DETACHED],
    ['not valid', NOT_VALID],
  ] as const) {
    it(`${name}: an attachment waiting while its volume is in use looks whether it is attached here, and records it attached`, async () => {
      const h = harness();
      await data1Created(h);
      const updatedAt = new Date(h.clock.now()).toISOString();
      await h.store.create(newAttachment('data-1', { status: { state: 'pending', attempts: 0, updatedAt, message: 'waiting for volume data-1 to become available' } }));
      // The only other record, whose own change the watcher has not judged yet.
      h.store.putRaw(other as unknown as ProvisionerRecord);
      h.changes.splice(0);
      // Someone attaches the volume to the waiting attachment's own instance in the console; a check writes it in use.
      await data1AttachedInConsole(h);
      const volumeChanges = h.changes.filter((change) => change.key.kind === 'volume');
      h.changes.splice(0);

      await h.watcher.handle(volumeChanges);
      expect(h.queued()).toContainEqual({ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 });
      await h.executor.run(h.batchOf(h.op('check-attachment', attachmentKey('data-1'))));
      expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attached' }, device: '/dev/sdz' });
      expect(h.ebs.calls.AttachVolume).toBe(1);
    });

    it(`${name}: a dying attachment that never sent AttachVolume looks before it is removed, and its dying volume's message counts it to detach`, async () => {
      const h = harness();
      const volume = newVolume('data-1', { life: 'dying', ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'in-use', attempts: 0, updatedAt: UPDATED_AT } });
      const unsent = newAttachment('data-1', { life: 'dying', status: { state: 'pending', attempts: 0, updatedAt: UPDATED_AT } });
      h.store.putRaw(volume);
      h.store.putRaw(other as unknown as ProvisionerRecord);
      h.store.putRaw(unsent);
      const unsentChange = h.changes.filter((change) => change.key.kind === 'attachment' && change.key.instanceId === INSTANCE);
      h.changes.splice(0);

      await h.watcher.handle(unsentChange);
      expect(h.queued()).toEqual([{ op: 'check-attachment', key: `data-1/${INSTANCE}`, delaySeconds: 0 }]);
      // The other record counts itself only if it may hold the volume.
      const othersToDetach = name === 'detached' ? 0 : 1;
      expect(planVolume(volume, [unsent, other], Date.parse(UPDATED_AT)).reason).toBe(`detaching ${1 + othersToDetach} attachment(s) before deleting`);
    });
  }
});

describe('whether an attachment record may hold its volume', () => {
  it('one attaching, attached or detaching, or pending or in error with its device kept, may; detached, or pending or in error without a device, does not', () => {
    for (const state of ['attaching', 'attached', 'detaching', 'pending', 'error']) expect(mayHoldItsVolume(otherRecord({ state })), state).toBe(true);
    for (const state of ['pending', 'error']) {
      const { device: _device, ...noDevice } = otherRecord({ state });
      expect(mayHoldItsVolume(noDevice as AttachmentRecord), state).toBe(false);
    }
    expect(mayHoldItsVolume(DETACHED)).toBe(false);
  });

  it("another instance's valid record that may hold it holds it; the attachment's own, or one not valid, does not", () => {
    const self = newAttachment('data-1', { status: { state: 'pending', attempts: 0, updatedAt: UPDATED_AT } });
    const attached = otherRecord({ state: 'attached' });
    expect(heldByAnotherRecord(self, [self, attached])).toBe(true);
    expect(heldByAnotherRecord(self, [self, { ...attached, instanceId: INSTANCE }])).toBe(false);
    expect(heldByAnotherRecord(self, [self, DETACHED, NOT_VALID])).toBe(false);
  });
});
