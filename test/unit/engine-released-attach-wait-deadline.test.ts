/**
 * Attachments a check releases (their volume seen available) are attached in the same invocation
 * only on rate tokens usable within what is left of the invocation's time less its reserve
 * (INVOCATION_RESERVE_MS, 10 s): the time the check already took (a slow DescribeVolumes) counts.
 * A token further off is not waited for: the watcher's message brings the attach.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import type { Clock } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/index.js';
import { attachmentKey, harness, newAttachment, newVolume, providerOver, volumeKey, volumeOf } from './engine-fixtures.js';

const RESERVE_MS = 10_000;
const DESCRIBE_MS = 5_000;

/** EC2's buckets, but AttachVolume holding one token that comes back every 10 s. */
const SLOW_ATTACH: EngineConfig['rateBudgets'] = {
  ...DEFAULT_ENGINE_CONFIG.rateBudgets,
  CreateVolume: { burst: 100, ratePerSecond: 5 },
  AttachVolume: { burst: 1, ratePerSecond: 0.1 },
};

/**
 * data-1 created in EC2 (its check not made yet) with an attachment waiting for it, and an executor
 * whose DescribeVolumes takes 5 s and whose one AttachVolume token was just spent on data-2: its
 * next token comes 10 s from now. Every sleep of that executor is recorded by the time it ends.
 */
async function releaseBehindSpentToken() {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await h.store.create(newVolume('data-2'));
  await h.store.create(newAttachment('data-1'));
  await h.executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1')), h.op('create-volume', volumeKey('data-2'))));
  await h.clock.advance(10_000);
  await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-2'))));
  expect((await volumeOf(h, 'data-2')).status.state).toBe('available');
  expect((await volumeOf(h, 'data-1')).status.state).toBe('creating');

  const sleepsEndAt: number[] = [];
  const clock: Clock = {
    now: () => h.clock.now(),
    sleep: (ms) => {
      sleepsEndAt.push(h.clock.now() + ms);
      return h.clock.sleep(ms);
    },
  };
  const provider = providerOver(h.ebs, {
    describeVolumes: async (ids) => {
      await h.clock.sleep(DESCRIBE_MS);
      return h.ebs.describeVolumes(ids);
    },
  });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 60_000, rateBudgets: SLOW_ATTACH } });
  await h.store.create(newAttachment('data-2'));
  await executor.run(h.batchOf(h.op('attach', attachmentKey('data-2'))));
  expect(h.ebs.calls.AttachVolume).toBe(1);
  sleepsEndAt.splice(0);
  return { h, executor, sleepsEndAt };
}

/** Runs the check of data-1 with `remainingTimeMs` of the invocation left, moving the clock 1 s at a time; returns when it ended. */
async function checkWithTimeLeft(h: ReturnType<typeof harness>, executor: Executor, remainingTimeMs: number): Promise<number> {
  let endedAt: number | undefined;
  const run = executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))), { remainingTimeMs }).then((result) => {
    endedAt = h.clock.now();
    return result;
  });
  for (let i = 0; i < 60 && endedAt === undefined; i++) await h.clock.advance(1_000);
  expect((await run).failedMessageIds).toEqual([]);
  return endedAt!;
}

async function attachmentOf(h: ReturnType<typeof harness>): Promise<AttachmentRecord> {
  return (await h.store.get(attachmentKey('data-1'))) as AttachmentRecord;
}

describe('attachments released by a check: the wait for their rate token', () => {
  it('never runs past the invocation deadline less its reserve, the check\'s own time counted: no attach, nothing written on the attachment', async () => {
    const { h, executor, sleepsEndAt } = await releaseBehindSpentToken();
    const start = h.clock.now();
    // 18 s left: the deadline is 8 s away; the check takes 5 s, the token comes in 10 s.
    const deadline = start + 18_000 - RESERVE_MS;

    const endedAt = await checkWithTimeLeft(h, executor, 18_000);

    expect((await volumeOf(h)).status.state).toBe('available');
    expect(sleepsEndAt.filter((at) => at > deadline)).toEqual([]);
    expect(endedAt).toBeLessThanOrEqual(deadline);
    expect(h.ebs.calls.AttachVolume).toBe(1);
    const attachment = await attachmentOf(h);
    expect(attachment.status).toMatchObject({ state: 'pending', attempts: 0 });
    expect(attachment.status.code).toBeUndefined();
  });

  it('with time enough, waits for the token and attaches in the same invocation', async () => {
    const { h, executor } = await releaseBehindSpentToken();
    const start = h.clock.now();

    const endedAt = await checkWithTimeLeft(h, executor, 30_000);

    expect(h.ebs.calls.AttachVolume).toBe(2);
    expect((await attachmentOf(h)).status.state).toBe('attaching');
    expect(endedAt - start).toBeGreaterThanOrEqual(10_000);
  });
});
