/**
 * A dying volume record whose CreateVolume was sent with its answer lost repeats that request to
 * learn the volume's id. A repeat EC2 refuses because the snapshot is still pending, made after
 * the operation's maximum age, is not given up on: a dying record never says it gave up. The
 * status it writes tells how far it got and that it is tried again after the longest backoff;
 * then, as the refusal shows that no volume exists under the token, the record goes.
 */
import { describe, expect, it } from 'vitest';
import type { Status, VolumeRecord } from '../../lib/domain/records.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { AZ, START, harness, newVolume, volumeKey } from './engine-fixtures.js';

const MINUTE = 60_000;

describe('executor: a dying record repeating its CreateVolume while the snapshot is pending, past the maximum age', () => {
  it('does not read as given up: not done after N minutes, tried again after the longest backoff', async () => {
    const h = harness();
    const spec = { sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: AZ, snapshotId: 'snap-0123456789abcdef0' };
    const clientToken = 'ebsp-data-1-0123456789ab-g1';
    const started = new Date(START).toISOString();
    // Its CreateVolume recorded and sent at START, the answer lost; its client has deleted it since.
    const record: VolumeRecord = newVolume(
      'data-1',
      {
        life: 'dying',
        createRequest: { clientToken, availabilityZone: AZ, spec },
        availabilityZone: AZ,
        observedGeneration: 1,
        status: { state: 'creating', attempts: 0, updatedAt: started, operationStartedAt: started },
      },
      spec,
    );
    await h.clock.advance(DEFAULT_ENGINE_CONFIG.maxOperationAgeMs + 10 * MINUTE);
    await h.store.create(record);
    const statuses: Status<string>[] = [];
    h.store.onChange((change) => {
      if (change.key.kind === 'volume' && change.newRecord) statuses.push((change.newRecord as VolumeRecord).status);
    });
    h.ebs.failNext('CreateVolume', new ProviderError('incorrect-state', 'IncorrectState', 'snapshot snap-0123456789abcdef0 is pending'));
    await h.watch();
    await h.drain();

    // The same request is repeated under its token, and refused.
    expect(h.createRequests.map((r) => r.clientToken)).toEqual([clientToken]);
    const now = h.clock.now();
    const minutes = Math.round((now - START) / MINUTE);
    expect(minutes).toBeGreaterThanOrEqual(DEFAULT_ENGINE_CONFIG.maxOperationAgeMs / MINUTE);
    const retryAt = new Date(now + DEFAULT_ENGINE_CONFIG.backoff.capSeconds * 1000).toISOString();
    const refused = statuses.filter((status) => status.code === 'IncorrectState');
    expect(refused.length).toBeGreaterThan(0);
    for (const status of refused) {
      expect(status).toMatchObject({
        state: 'error',
        attempts: 1,
        nextAttemptAt: retryAt,
        message: `snapshot snap-0123456789abcdef0 is pending (not done after ${minutes} minutes); being deleted: trying again at ${retryAt}`,
      });
    }
    expect(statuses.map((status) => status.message ?? '')).not.toContainEqual(expect.stringContaining('gave up'));
    // Refused, the request made no volume: the dying record has nothing to delete and goes.
    expect(await h.store.get(volumeKey('data-1'))).toBeUndefined();
    expect(h.ebs.volumes()).toHaveLength(0);
  });
});
