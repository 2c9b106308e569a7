/**
 * A repeated CreateVolume whose volume EC2 answers in state `error` (its storage failed): the
 * record's status says so as a VolumeError, ending with what comes next: on a live record what
 * the client can do, on a dying one that the record's delete deletes the EC2 volume next.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { VOLUME_ERROR_ALIVE, VOLUME_ERROR_DYING } from '../../lib/engine/status.js';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

async function repeatedOntoFailedVolume(life: 'alive' | 'dying') {
  const h = harness();
  h.loseCreateAnswers(1);
  await h.store.create(newVolume('data-1'));
  await h.watch();
  await h.drain();
  expect((await volumeOf(h)).status).toMatchObject({ state: 'creating', code: 'RequestTimeout' });
  const [made] = h.ebs.volumes();
  await h.clock.advance(30_000);
  h.ebs.failVolume(made!.ebsVolumeId);
  const messages: string[] = [];
  h.store.onChange((change) => {
    const status = (change.newRecord as VolumeRecord | undefined)?.status;
    if (status?.code === 'VolumeError' && status.message) messages.push(status.message);
  });
  if (life === 'dying') await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
  await h.watch();
  await h.settle(60_000);
  expect(h.ebs.calls.CreateVolume).toBeGreaterThanOrEqual(2);
  expect(messages.length).toBeGreaterThan(0);
  return { message: messages[0]!, ebsVolumeId: made!.ebsVolumeId };
}

describe('a repeated CreateVolume answered with its volume in state error', () => {
  it('on a live record, says the volume failed and what the client can do', async () => {
    const { message, ebsVolumeId } = await repeatedOntoFailedVolume('alive');
    expect(message).toContain(`EC2 reports volume ${ebsVolumeId} in state error`);
    expect(message.endsWith(VOLUME_ERROR_ALIVE)).toBe(true);
  });

  it('on a dying record, says the volume failed and is deleted next', async () => {
    const { message, ebsVolumeId } = await repeatedOntoFailedVolume('dying');
    expect(message).toContain(`EC2 reports volume ${ebsVolumeId} in state error`);
    expect(message.endsWith(VOLUME_ERROR_DYING)).toBe(true);
  });
});
