/**
 * docs/state-machines.md gives why each move is made. An AttachVolume EC2 refuses with an error
 * retrying cannot fix takes its attachment from `attaching` straight to `error` on its first
 * attempt, its budget far from spent: the row of that move says so.
 */
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_TRANSITIONS } from '../../lib/domain/state-machines.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, newAttachment, newVolume, providerOver, settleAll } from './engine-fixtures.js';

describe('an attach EC2 refuses for good', () => {
  it('goes from attaching to error at its first attempt, as the state machines document gives the reason', async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await settleAll(h, 2);
    await h.store.create(newAttachment('data-1'));
    await h.watch();
    h.queue.purge();
    const moves: string[] = [];
    h.store.onChange((change) => {
      const before = (change.oldRecord as { status?: { state: string } } | undefined)?.status?.state;
      const after = (change.newRecord as { status?: { state: string } } | undefined)?.status?.state;
      if (change.key.kind === 'attachment' && before !== after) moves.push(`${before} → ${after}`);
    });
    const provider = providerOver(h.ebs, {
      attachVolume: async () => {
        throw new ProviderError('invalid-request', 'InvalidParameterValue', 'Value (/dev/sdf) for parameter device is invalid.');
      },
    });
    const executor = new Executor({ store: h.store, queue: h.queue, provider, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));

    expect(moves).toEqual(['pending → attaching', 'attaching → error']);
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'InvalidParameterValue', attempts: 1 } });
    const row = ATTACHMENT_TRANSITIONS.find((transition) => transition.from === 'attaching' && transition.to === 'error' && transition.event === 'failed');
    expect(row?.why).toMatch(/retrying cannot fix/);
  });
});
