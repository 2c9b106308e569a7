/**
 * A wait for the snapshot a volume is created from uses no attempt: it ends when EC2 completes the
 * snapshot, or at the operation's maximum age. A create that failed nearly every attempt it has
 * and then finds its snapshot not completed still waits for it.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { harness, newVolume, volumeOf } from './engine-fixtures.js';

const MINUTE = 60_000;

describe('executor: a create that waits for its snapshot after failed attempts', () => {
  it('waits, using no attempt, with one attempt left: not given up', async () => {
    const h = harness();
    const failures = DEFAULT_ENGINE_CONFIG.maxAttempts - 1;
    h.ebs.failNext('CreateVolume', new ProviderError('transient', 'InternalError', 'CreateVolume failed'), failures);
    await h.store.create(newVolume('data-1'));
    await h.watch();
    for (let i = 0; i < 200 && (await volumeOf(h)).status.attempts < failures; i++) await h.settle(10_000, 10_000);
    expect((await volumeOf(h)).status).toMatchObject({ code: 'InternalError', attempts: failures });
    const calls = h.ebs.calls.CreateVolume;
    h.ebs.failNext('CreateVolume', new ProviderError('incorrect-state', 'IncorrectState', 'snapshot snap-1 is pending'), 1);
    for (let i = 0; i < 200 && h.ebs.calls.CreateVolume === calls; i++) await h.settle(10_000, 10_000);
    expect(h.ebs.calls.CreateVolume).toBe(calls + 1);
    expect((await volumeOf(h)).status).toMatchObject({ code: 'IncorrectState', attempts: failures, message: 'waiting: snapshot snap-1 is pending' });
    expect((await volumeOf(h)).status.state).not.toBe('error');
    // Completed, the snapshot makes the volume.
    await h.settle(30 * MINUTE, 10_000);
    await h.watch();
    expect((await volumeOf(h)).status.state).toBe('available');
  });
});
