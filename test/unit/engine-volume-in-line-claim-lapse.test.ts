import { describe, expect, it } from 'vitest';
import { volumeInLineByCheck } from '../../lib/engine/execution/checks.js';
import type { ProviderVolume } from '../../lib/engine/ports.js';
import { created, volume } from './planner-fixtures.js';

const NOW = Date.parse('2026-01-01T00:10:00.000Z');

const inUse: ProviderVolume = {
  ebsVolumeId: 'vol-1',
  state: 'in-use',
  availabilityZone: 'eu-west-1a',
  sizeGiB: 10,
  volumeType: 'gp3',
  multiAttach: false,
  encrypted: false,
  attachments: [{ instanceId: 'i-0123456789abcdef0', device: '/dev/xvdf', state: 'attached' }],
  tags: {},
};

describe('an attachment check brings its volume record in line only when the record is unclaimed', () => {
  it('a claim held past now keeps the record as it is', () => {
    expect(volumeInLineByCheck(volume('available', { ...created, claim: { owner: 'x', expiresAt: NOW + 1 } }), inUse, NOW)).toBe(false);
  });

  it('a claim whose expiry is now has lapsed, as the store judges it, so the record is brought in line', () => {
    expect(volumeInLineByCheck(volume('available', { ...created, claim: { owner: 'x', expiresAt: NOW } }), inUse, NOW)).toBe(true);
    expect(volumeInLineByCheck(volume('available', { ...created, claim: { owner: 'x', expiresAt: NOW - 1 } }), inUse, NOW)).toBe(true);
  });
});
