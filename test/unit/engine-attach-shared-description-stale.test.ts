/**
 * An attach judged on the description of its instance another environment left on an attachment
 * record (`instanceSeen`) that no longer holds: the attempt waits and its retry describes the
 * instance afresh. That description is not kept for the instance's next attaches either, so an
 * attachment of the same instance taken up before the retry is not refused for good on it.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe("attaches judged on another environment's stale description of their instance", () => {
  it('wait for a fresh description: an attachment of the same instance taken up meanwhile is not failed on it, and both attach', async () => {
    const h = harness();
    for (const id of ['data-1', 'data-2', 'data-3']) await h.store.create(newVolume(id));
    await settleAll(h);
    // Another environment's description of the instance, an instant old, naming an AZ it is not in.
    const stale = { availabilityZone: 'eu-west-1b', state: 'running', otherDevices: [], describedAt: h.clock.now() } as const;
    h.store.putRaw({ ...newAttachment('data-2'), status: { state: 'error', code: 'IncorrectInstanceState', attempts: 1, updatedAt: new Date(h.clock.now()).toISOString() }, instanceSeen: stale });
    const statuses: AttachmentRecord['status'][] = [];
    h.store.onChange((change) => {
      const record = change.newRecord as AttachmentRecord | undefined;
      if (change.key.kind === 'attachment' && change.key.volumeId !== 'data-2' && record) statuses.push(record.status);
    });

    await h.store.create(newAttachment('data-1'));
    await h.watch();
    await h.drain();
    const first = (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
    expect(first.status).toMatchObject({ state: 'pending', nextAttemptAt: expect.any(String) });
    expect(h.ebs.calls.AttachVolume ?? 0).toBe(0);

    // Before data-1's retry is due.
    await h.store.create(newAttachment('data-3'));
    await h.watch();
    await h.drain();
    expect((await h.store.get(attachmentKey('data-3')))!.status.state).not.toBe('error');

    await settleAll(h);
    for (const id of ['data-1', 'data-3'])
      expect(await h.store.get(attachmentKey(id))).toMatchObject({ status: { state: 'attached' }, instanceSeen: { availabilityZone: AZ } });
    expect(statuses.map((s) => s.state)).not.toContain('error');
  });
});
