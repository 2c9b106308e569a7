/**
 * A token reserved from this environment's own share, given up because EC2 throttled the bucket's
 * calls since it was reserved, goes back to that share: the next call spends it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG, type EngineConfig } from '../../lib/engine/config.js';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { attachmentKey, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

describe("a token of the environment's own share given up after EC2 throttled", () => {
  it('goes back to the share, and the next attach is made on it', async () => {
    // The mutating bucket: one token, refilled every second (every 2 s once slowed by a refusal); calls wait up to 1 s.
    const slow = { burst: 1, ratePerSecond: 1 };
    const rateBudgets: EngineConfig['rateBudgets'] = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, AttachVolume: slow };
    const h = harness({ config: { rateWaitMaxMs: 1_000, rateBudgets } });
    const ids = ['v1', 'v2', 'v3'];
    for (const id of ids) await h.store.create(newVolume(id));
    await settleAll(h);
    for (const id of ids) await h.store.create(newAttachment(id));
    const environment = h.environment();
    const statusOf = async (id: string) => ((await h.store.get(attachmentKey(id))) as AttachmentRecord).status;

    // Two attaches, on the tokens of now and 1 s later; EC2 refuses the first for its rate.
    h.ebs.failNext('AttachVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    const first = environment.run(h.batchOf(h.op('attach', attachmentKey('v1')), h.op('attach', attachmentKey('v2'))));
    await h.clock.advance(1_000);
    await first;
    expect(h.ebs.calls.AttachVolume).toBe(1);
    expect(await statusOf('v2')).toMatchObject({ state: 'pending', code: 'RateBudgetExceeded', attempts: 0 });

    // Half a second on, the token v2 gave back has half refilled: the third attach's is usable within the wait.
    await h.clock.advance(500);
    const second = environment.run(h.batchOf(h.op('attach', attachmentKey('v3'))));
    await h.clock.advance(1_000);
    await second;
    expect(h.ebs.calls.AttachVolume).toBe(2);
    expect((await statusOf('v3')).state).toBe('attaching');
  });
});
