/**
 * After EC2 refuses a call for its rate, this environment's share refills at half its rate; each
 * call that goes through then wins back a twentieth of the rate (additive increase), so ten
 * successes restore it. Operations deferred for want of a token then come back when the restored
 * rate would have their tokens.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

describe("this environment's share after a refusal for rate", () => {
  it('is back to its rate after ten calls go through: the operations deferred then are due a second apart', async () => {
    // A share of 20 tokens refilled one a second; halved by a refusal.
    const rateBudgets = { ...DEFAULT_ENGINE_CONFIG.rateBudgets, CreateVolume: { burst: 20, ratePerSecond: 1 } };
    const h = harness({ config: { rateBudgets } });
    const ids = Array.from({ length: 23 }, (_, i) => `v${String(i).padStart(2, '0')}`);
    for (const id of ids) await h.store.create(newVolume(id));

    h.ebs.failNext('CreateVolume', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
    await h.executor.run(h.batchOf(h.op('create-volume', volumeKey(ids[0]!))));
    expect(h.ebs.calls.CreateVolume).toBe(1);
    // Long enough for the slowed share to fill up again.
    await h.clock.advance(60_000);
    h.queue.purge();

    await h.executor.run(h.batchOf(...ids.slice(1, 11).map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.ebs.calls.CreateVolume).toBe(11);
    h.queue.purge();

    // Twelve more: ten tokens left, the last two deferred one and two refills of a second away.
    await h.executor.run(h.batchOf(...ids.slice(11).map((id) => h.op('create-volume', volumeKey(id)))));
    expect(h.ebs.calls.CreateVolume).toBe(21);
    expect(h.queued().filter((q) => q.op === 'create-volume')).toEqual([
      { op: 'create-volume', key: ids[21], delaySeconds: 1 },
      { op: 'create-volume', key: ids[22], delaySeconds: 2 },
    ]);
  });
});
