/**
 * README, alarm `DeadLetters`: when the executor cannot read or write a message's records in the
 * table or send its follow-up messages, it reports just that message back as failed and logs an
 * `ERROR` line with the error, each under the name the README gives (`reading records failed`,
 * `reading attachments failed`, `claim failed`, `status write before the EC2 call failed`, `status
 * write failed`, `scheduling follow-ups failed`).
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { executorOver, harness, newAttachment, newVolume, settleAll, volumeKey } from './engine-fixtures.js';

const TABLE_DOWN = new Error('table unavailable');

async function run(setUp: (h: ReturnType<typeof harness>) => Promise<ReturnType<ReturnType<typeof harness>['op']>>, fail: (h: ReturnType<typeof harness>) => void) {
  const h = harness();
  const message = await setUp(h);
  h.queue.purge();
  const log = new RecordingLog();
  const executor = executorOver(h, { log });
  fail(h);
  const batch = h.batchOf(message);
  const { failedMessageIds } = await executor.run(batch);
  const errors = log.entries.filter((entry) => entry.level === 'error').map((entry) => ({ message: entry.message, error: entry.attributes?.error }));
  return { failedMessageIds, sent: batch.map((item) => item.messageId), errors, createVolumeCalls: h.ebs.calls.CreateVolume ?? 0 };
}

const newVolumeToCreate = async (h: ReturnType<typeof harness>) => {
  await h.store.create(newVolume('data-1'));
  return h.op('create-volume', volumeKey('data-1'));
};

describe('the executor, when the table or the queue fails it', () => {
  it('cannot read the records: "reading records failed", the message failed', async () => {
    const result = await run(newVolumeToCreate, (h) => h.store.failNext('getMany', TABLE_DOWN));
    expect(result.errors).toEqual([{ message: 'reading records failed', error: 'table unavailable' }]);
    expect(result.failedMessageIds).toEqual(result.sent);
  });

  it('cannot read a dying volume\'s attachments: "reading attachments failed", the message failed', async () => {
    const result = await run(
      async (h) => {
        await h.store.create(newVolume('data-1'));
        await h.store.create(newAttachment('data-1'));
        await settleAll(h, 3);
        await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
        return h.op('delete-volume', volumeKey('data-1'));
      },
      (h) => h.store.failNext('attachmentsOfVolume', TABLE_DOWN),
    );
    expect(result.errors).toEqual([{ message: 'reading attachments failed', error: 'table unavailable' }]);
    expect(result.failedMessageIds).toEqual(result.sent);
  });

  it('cannot claim the record: "claim failed", the message failed', async () => {
    // A volume deleted before it was created is removed under a claim.
    const result = await run(
      async (h) => {
        await h.store.create(newVolume('data-1', { life: 'dying' }));
        return h.op('delete-volume', volumeKey('data-1'));
      },
      (h) => h.store.failNext('claim', TABLE_DOWN),
    );
    expect(result.errors).toEqual([{ message: 'claim failed', error: 'table unavailable' }]);
    expect(result.failedMessageIds).toEqual(result.sent);
  });

  it('cannot write the status before a CreateVolume: "status write before the EC2 call failed", the message failed, no call made', async () => {
    const result = await run(newVolumeToCreate, (h) => h.store.failNext('update', TABLE_DOWN));
    expect(result.errors).toEqual([{ message: 'status write before the EC2 call failed', error: 'table unavailable' }]);
    expect(result.failedMessageIds).toEqual(result.sent);
    expect(result.createVolumeCalls).toBe(0);
  });

  it('cannot write what a check saw: "status write failed", the message failed', async () => {
    const result = await run(
      async (h) => {
        await h.store.create(newVolume('data-1'));
        await h.watch();
        await h.drain();
        expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'creating' } });
        await h.clock.advance(10_000);
        return h.op('check-volume', volumeKey('data-1'));
      },
      (h) => h.store.failNext('update', TABLE_DOWN),
    );
    expect(result.errors).toEqual([{ message: 'status write failed', error: 'table unavailable' }]);
    expect(result.failedMessageIds).toEqual(result.sent);
  });

  it('cannot send the follow-up of a create: "scheduling follow-ups failed", the message failed', async () => {
    const result = await run(newVolumeToCreate, (h) => h.queue.failNextSend(new Error('queue unavailable')));
    expect(result.errors).toEqual([{ message: 'scheduling follow-ups failed', error: 'queue unavailable' }]);
    expect(result.failedMessageIds).toEqual(result.sent);
  });
});
