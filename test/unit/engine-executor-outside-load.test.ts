/**
 * Executor environments sharing EC2's CreateVolume bucket through the shared rate budget while a
 * client outside the system steadily spends part of it: how many calls EC2 refuses once the
 * system has settled, and whether every volume is still made.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, type VolumeProvider } from '../../lib/engine/ports.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { MemoryOperationQueue } from '../../lib/memory/queue.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness, newVolume, providerOver, volumeKey } from './engine-fixtures.js';

const ENVIRONMENTS = 5;

/**
 * `volumes` creates asked for at once, five environments taking the queue's batches in turn, EC2's
 * CreateVolume bucket (100, 5 a second) spent 3 a second by an outside client. Returns the calls
 * EC2 refused and the volumes made.
 */
async function createsUnderOutsideLoad(volumes: number, totalMs: number): Promise<{ refused: number; made: number }> {
  const h = harness({ config: { rateWaitMaxMs: 0, concurrentEnvironments: ENVIRONMENTS, rateBudgets: DEFAULT_ENGINE_CONFIG.rateBudgets } });
  const ec2 = { tokens: 100, updatedAt: h.clock.now() };
  let refused = 0;
  const provider: VolumeProvider = providerOver(h.ebs, {
    createVolume: async (request) => {
      const now = h.clock.now();
      ec2.tokens = Math.min(100, ec2.tokens + ((now - ec2.updatedAt) / 1000) * (5 - 3));
      ec2.updatedAt = now;
      if (ec2.tokens < 1) {
        refused++;
        throw new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.');
      }
      ec2.tokens -= 1;
      return h.ebs.createVolume(request);
    },
  });
  const rateBudget = new MemoryRateBudget();
  const queue = h.queue as MemoryOperationQueue;
  let owners = 0;
  const environments = Array.from(
    { length: ENVIRONMENTS },
    () =>
      new Executor({
        store: h.store,
        queue,
        clock: h.clock,
        metrics: h.metrics,
        log: silentLog,
        config: { rateWaitMaxMs: 0, concurrentEnvironments: ENVIRONMENTS },
        provider,
        rateBudget,
        newOwnerId: () => `owner-${++owners}`,
        random: () => 0.5,
      }),
  );
  const ids = Array.from({ length: volumes }, (_, i) => `data-${i}`);
  for (const id of ids) await h.store.create(newVolume(id));
  await h.queue.send(ids.map((id) => ({ message: h.op('create-volume', volumeKey(id)), delaySeconds: 0 })));
  let turn = 0;
  const start = h.clock.now();
  while (h.clock.now() - start < totalMs) {
    for (let round = 0; round < 20; round++) {
      const received = queue.receive(100);
      if (received.length === 0) break;
      const executor = environments[turn++ % ENVIRONMENTS]!;
      const { failedMessageIds } = await executor.run(received.map((r) => ({ messageId: r.messageId, message: r.message, receiveCount: r.receiveCount })));
      const failed = new Set(failedMessageIds);
      for (const r of received) if (!failed.has(r.messageId)) queue.delete(r.receiptHandle);
    }
    await h.clock.advance(1000);
  }
  const made = h.store.all().filter((r) => r.kind === 'volume' && r.ebsVolumeId !== undefined).length;
  return { refused, made };
}

describe('executor environments under a steady load from outside the system', () => {
  it('make every volume, and a refused environment slows down to its own share: EC2 refuses few of their calls', { timeout: 60_000 }, async () => {
    // 400 creates at the 2 a second the outside client leaves take some 200 s.
    const { refused, made } = await createsUnderOutsideLoad(400, 4 * 60_000);
    expect(made).toBe(400);
    // The shared budget alone (one token taken per refusal) left 219 refused.
    expect(refused).toBeLessThanOrEqual(80);
  });
});
