/**
 * An attachment waiting for its volume in error says for which error (`volume … is in error: CODE`).
 * A volume that stays in error under another code (its message dead-lettered: `ExecutorFailed`, its
 * state kept) changes what its waiting attachments wait for, so the watcher has them say so, with
 * no EC2 call.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';

describe('an attachment waiting for its volume in error', () => {
  it('says so with the code the volume holds now, when the volume stays in error under another code', async () => {
    const h = harness();
    const at = new Date(h.clock.now()).toISOString();
    await h.store.create(
      newVolume('data-1', { status: { state: 'error', code: 'InvalidParameterValue', message: 'The parameter is not valid', attempts: 1, updatedAt: at } }),
    );
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    expect((await h.store.get(attachmentKey('data-1')))?.status.message).toBe(
      'volume data-1 is in error: InvalidParameterValue; the attach waits until the volume is retried',
    );

    await h.clock.advance(1000);
    const later = new Date(h.clock.now()).toISOString();
    await h.store.update<VolumeRecord>(volumeKey('data-1'), {
      status: { state: 'error', code: 'ExecutorFailed', message: 'its message went to the dead-letter queue.', attempts: 1, updatedAt: later },
    });
    const calls = { ...h.ebs.calls };
    await h.watch();

    expect((await h.store.get(attachmentKey('data-1')))?.status).toMatchObject({
      state: 'pending',
      message: 'volume data-1 is in error: ExecutorFailed; the attach waits until the volume is retried',
    });
    expect(h.ebs.calls).toEqual(calls);
    expect(h.queued()).toEqual([]);
  });
});
