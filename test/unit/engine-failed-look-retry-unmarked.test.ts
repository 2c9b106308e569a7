/**
 * A progress check whose DescribeVolumes fails is sent again after its backoff as a check, unmarked
 * as a retry (`OperationMessage.retryOf`): only an operation's step carries that mark, which turns a
 * retry that finds another attempt due into a look.
 */
import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../lib/engine/ports.js';
import { iopsModification, volumeKey, volumeOf } from './engine-fixtures.js';

describe('a check of a modification whose describe fails', () => {
  it('comes back as a check not marked as a retry', async () => {
    const h = await iopsModification({ modify: 60 * 60_000, optimize: 1000 });
    h.queue.purge();
    h.ebs.failNext('DescribeVolumes', new ProviderError('transient', 'RequestTimeout', 'DescribeVolumes timed out'));
    await h.executor.run(h.batchOf(h.op('check-volume', volumeKey('data-1'))));

    const volume = await volumeOf(h);
    expect(volume.status).toMatchObject({ state: 'modifying', code: 'RequestTimeout', nextAttemptAt: expect.any(String) });
    const messages = h.queue.pending().map((pending) => pending.message);
    expect(messages).toEqual([expect.objectContaining({ op: 'check-volume', key: { kind: 'volume', volumeId: 'data-1' } })]);
    expect(messages[0]).not.toHaveProperty('retryOf');
  });
});
