/**
 * An AttachVolume EC2 accepted and does not list: within the describe grace of the call a describe
 * may lag it, and the check looks again; once the grace has passed, the attach did not take, a
 * failed attempt that its retry makes again.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { attachmentKey, attachmentOf, data1Created, harness, newAttachment, providerOver, volumeOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

/** data-1 available, its attachment attaching on an AttachVolume EC2 accepted and made nothing of; the time of the call. */
async function attachNotMade() {
  const h = harness();
  await data1Created(h, 10_000);
  expect((await volumeOf(h)).status.state).toBe('available');
  const provider = providerOver(h.ebs, { attachVolume: async () => undefined });
  const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
  await h.store.create(newAttachment('data-1'));
  await executor.run(h.batchOf(h.op('attach', KEY)));
  const attaching = await attachmentOf(h);
  expect(attaching.status.state).toBe('attaching');
  return { h, started: Date.parse(attaching.status.operationStartedAt!) };
}

describe('executor: a check of an attach EC2 does not list', () => {
  it('a millisecond before the describe grace ends: still attaching, no attempt counted', async () => {
    const { h, started } = await attachNotMade();
    await h.clock.advance(started + DEFAULT_ENGINE_CONFIG.describeGraceMs - 1 - h.clock.now());
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'attaching', attempts: 0 });
  });

  it('once the grace has passed: a failed attempt, the attach did not take', async () => {
    const { h, started } = await attachNotMade();
    await h.clock.advance(started + DEFAULT_ENGINE_CONFIG.describeGraceMs - h.clock.now());
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));
    expect((await attachmentOf(h)).status).toMatchObject({ state: 'pending', code: 'AttachmentNotFound', message: 'the attach did not take', attempts: 1 });
  });
});
