/**
 * EC2 (an emulator, say) may list an attachment without its device name. A check of an attachment
 * at rest that finds it attached under no name keeps the device the record holds: an empty name
 * is no sign that it was detached and attached again outside under another one.
 */
import { describe, expect, it } from 'vitest';
import { Executor } from '../../lib/engine/executor.js';
import { silentLog } from '../../lib/memory/index.js';
import { attachmentKey, harness, providerOver, attachData1, attachmentOf } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: a check finding an attachment listed without a device name', () => {
  it('keeps the recorded device and status', async () => {
    const h = harness();
    await attachData1(h);
    const attached = await attachmentOf(h);
    expect(attached.status.state).toBe('attached');
    expect(attached.device).toMatch(/^\/dev\//);

    const unnamed = providerOver(h.ebs, {
      describeVolumes: async (ids) => (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, attachments: v.attachments.map((a) => ({ ...a, device: '' })) })),
    });
    const looking = new Executor({ store: h.store, queue: h.queue, provider: unnamed, clock: h.clock, metrics: h.metrics, log: silentLog, config: { rateWaitMaxMs: 0 } });
    await h.clock.advance(60_000);
    await looking.run(h.batchOf(h.op('check-attachment', KEY)));
    const checked = await attachmentOf(h);
    expect(checked.device).toBe(attached.device);
    expect(checked.status).toEqual(attached.status);
  });
});
