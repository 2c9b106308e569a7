/**
 * An instance whose attach was refused and waits for its retry is described afresh for all its
 * attaches (the description held may be what the attach was refused on). An attachment its client
 * deleted after such a refusal waits for no retry: the instance's description is reused as before.
 */
import { describe, expect, it } from 'vitest';
import { attachmentKey, AZ, harness, newAttachment, newVolume, settleAll } from './engine-fixtures.js';

async function attachBeside(life: 'alive' | 'dying') {
  const h = harness();
  await h.store.create(newVolume('data-1'));
  await settleAll(h, 3);
  const now = h.clock.now();
  // An attach to the instance refused once (no device written), and a fresh description of it left on another record.
  h.store.putRaw({ ...newAttachment('data-0'), life, status: { state: 'pending', code: 'IncorrectState', attempts: 1, updatedAt: new Date(now).toISOString() } });
  h.store.putRaw({ ...newAttachment('data-9'), device: '/dev/sdz', instanceSeen: { availabilityZone: AZ, state: 'running', otherDevices: [], describedAt: now } });
  const describedBefore = h.ebs.calls.DescribeInstances ?? 0;
  await h.store.create(newAttachment('data-1'));
  h.queue.purge();
  await h.executor.run(h.batchOf(h.op('attach', attachmentKey('data-1'))));
  expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'attaching' } });
  return (h.ebs.calls.DescribeInstances ?? 0) - describedBefore;
}

describe('an attach beside an attach of the same instance refused earlier', () => {
  it('the refused one waiting for its retry: the instance is described afresh', async () => {
    expect(await attachBeside('alive')).toBe(1);
  });

  it('the refused one deleted by its client: the description left on a record is used', async () => {
    expect(await attachBeside('dying')).toBe(0);
  });
});
