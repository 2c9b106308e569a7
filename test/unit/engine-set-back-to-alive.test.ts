/**
 * A record whose delete or detach was given up on (tried again, dying, after the longest backoff),
 * set back to alive straight in the table: no attempt follows any more, and its status says it
 * gave up, not how far it got so far.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { budgetSpent, givenUpOnceAlive } from '../../lib/engine/schedule.js';
import { resolveEngineConfig } from '../../lib/engine/config.js';
import { settledStatus } from '../../lib/engine/status.js';
import { attachmentKey, harness, newAttachment, newVolume, START, volumeKey } from './engine-fixtures.js';

const MINUTE = 60_000;
const transient = () => new ProviderError('transient', 'InternalError', 'An internal error has occurred');

async function run(h: ReturnType<typeof harness>, ms: number, stepMs = 1000) {
  for (let spent = 0; spent < ms; spent += stepMs) {
    await h.watch();
    await h.settle(stepMs, stepMs);
  }
  await h.watch();
}

describe('a record set back to alive after its dying step was given up on', () => {
  it('a volume whose DeleteVolume kept failing: in error, saying it gave up after its attempts, with no next attempt', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    await h.store.create(newVolume('data-1'));
    await run(h, 10_000);
    h.ebs.failNext('DeleteVolume', transient(), 100);
    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'dying' });
    await run(h, MINUTE);
    expect((await h.store.get(volumeKey('data-1')))?.status.message).toMatch(/\(failed 2 times so far\); being deleted: trying again at /);

    await h.store.update<VolumeRecord>(volumeKey('data-1'), { life: 'alive' });
    await run(h, 5000);
    const { status } = (await h.store.get(volumeKey('data-1')))!;
    expect(status).toMatchObject({ state: 'error', attempts: 2, message: 'An internal error has occurred (gave up after 2 failed attempts)' });
    expect(status.nextAttemptAt).toBeUndefined();
  });

  it('an attachment whose DetachVolume kept failing: the same', async () => {
    const h = harness({ config: { maxAttempts: 2 } });
    await h.store.create(newVolume('data-1'));
    await h.store.create(newAttachment('data-1'));
    await run(h, 20_000);
    expect((await h.store.get(attachmentKey('data-1')))?.status.state).toBe('attached');
    h.ebs.failNext('DetachVolume', transient(), 100);
    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'dying' });
    await run(h, MINUTE);
    expect((await h.store.get(attachmentKey('data-1')))?.status.message).toMatch(/\(failed 2 times so far\); being deleted: trying again at /);

    await h.store.update<AttachmentRecord>(attachmentKey('data-1'), { life: 'alive' });
    await run(h, 5000);
    const { status } = (await h.store.get(attachmentKey('data-1')))!;
    expect(status).toMatchObject({ state: 'error', attempts: 2, message: 'An internal error has occurred (gave up after 2 failed attempts)' });
    expect(status.nextAttemptAt).toBeUndefined();
  });

  it('a look that found the work not done in time: it gave up after that long', () => {
    const status = {
      state: 'error' as const,
      code: 'Timeout',
      attempts: 1,
      updatedAt: new Date(START).toISOString(),
      message: 'deleting vol-1: not done after 361 minutes; being deleted: trying again at 2026-01-01T06:16:00.000Z',
      nextAttemptAt: '2026-01-01T06:16:00.000Z',
    };
    expect(settledStatus(status, START).message).toBe('deleting vol-1: gave up after 361 minutes');
  });

  it('turns each of the dying phrasings of the schedule into the live one', () => {
    const config = resolveEngineConfig({ maxAttempts: 3 });
    const byAttempts = (triedAgain: boolean) => budgetSpent(3, START, START, config, triedAgain)!.message;
    const byAge = (triedAgain: boolean) => budgetSpent(0, START, START + config.maxOperationAgeMs, config, triedAgain)!.message;
    expect(givenUpOnceAlive(`boom (${byAttempts(true)})`)).toBe(`boom (${byAttempts(false)})`);
    expect(givenUpOnceAlive(`boom: ${byAge(true)}`)).toBe(`boom: ${byAge(false)}`);
    expect(givenUpOnceAlive('boom')).toBe('boom');
  });
});
