/**
 * An operation's own message that reaches its record before the first progress check's time,
 * once another message started the operation, brings a check back at that time as one of the
 * operation's chain (`OperationMessage.chainOf`, its start): should that operation end and
 * another begin before then, the check is only a look beside the new operation's own chain.
 */
import { describe, expect, it } from 'vitest';
import { harness, newVolume, volumeKey, volumeOf } from './engine-fixtures.js';

const KEY = volumeKey('data-1');

describe("an operation's own message before the first check's time", () => {
  it("sends the check for that time as one of the operation's chain", async () => {
    const h = harness();
    await h.store.create(newVolume('data-1'));
    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('creating');
    const before = h.queue.pending().length;

    await h.executor.run(h.batchOf(h.op('create-volume', KEY)));

    const sent = h.queue.pending().slice(before).map((p) => p.message);
    expect(sent).toEqual([expect.objectContaining({ op: 'check-volume', chainOf: volume.status.operationStartedAt })]);
    expect(h.ebs.calls.CreateVolume).toBe(1);
  });
});
