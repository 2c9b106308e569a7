/** A volume's details name the generation EC2 matches whenever the API gives one (`observedGeneration`), 0 included. */
import { describe, expect, it } from 'vitest';
import { volumeDetails } from '../../cli/format.js';
import type { VolumeDetails } from '../../lib/api/schemas.js';

const T = '2026-01-01T12:00:00.000Z';

const details = (extra: Partial<VolumeDetails> = {}): VolumeDetails => ({
  volumeId: 'data-01',
  spec: { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'eu-west-1a' },
  life: 'alive',
  generation: 1,
  status: { state: 'pending', attempts: 0, updatedAt: T },
  createdAt: T,
  attachments: [],
  ...extra,
});

describe("a volume's generation in its details", () => {
  it('names an observed generation of 0 as the one EC2 matches', () => {
    expect(volumeDetails(details({ observedGeneration: 0 })).split('\n')).toContain('Generation: 1 (EC2 matches 0)');
  });

  it('is the generation alone when the API gives no observed generation', () => {
    expect(volumeDetails(details()).split('\n')).toContain('Generation: 1');
  });
});
