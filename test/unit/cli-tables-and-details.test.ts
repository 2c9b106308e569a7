import { describe, expect, it } from 'vitest';
import { ApiError } from '../../cli/client.js';
import { attachmentLine, describeError, describeStatus, table, volumeDetails } from '../../cli/format.js';
import type { AttachmentView, VolumeDetails } from '../../lib/api/schemas.js';

const T = '2026-01-01T12:00:00.000Z';

const details = (extra: Partial<VolumeDetails> = {}): VolumeDetails => ({
  volumeId: 'data-01',
  spec: { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'eu-west-1a' },
  life: 'alive',
  generation: 1,
  status: { state: 'available', attempts: 0, updatedAt: T },
  createdAt: T,
  attachments: [],
  ...extra,
});

describe('tables the CLI prints', () => {
  it('separates columns by two spaces, as wide as the widest cell or header', () => {
    expect(table(['VOLUME', 'STATE'], [['d', 'available']])).toBe('VOLUME  STATE\nd       available');
  });

  it('shows an empty cell as -, like a missing one', () => {
    expect(table(['A', 'B', 'C'], [['x', '', undefined]])).toBe('A  B  C\nx  -  -');
  });
});

describe('a status as a person reads it', () => {
  it('names the attempt, the code and when the next try is', () => {
    expect(describeStatus({ state: 'pending', attempts: 2, code: 'RequestLimitExceeded', nextAttemptAt: '2026-01-01T12:00:05.000Z', updatedAt: T })).toBe(
      'pending (attempt 2, RequestLimitExceeded, next try 2026-01-01T12:00:05.000Z)',
    );
  });
});

describe("a volume's details", () => {
  it('lines the values up one space after the longest label, and shows throughput, generations and the update time', () => {
    const text = volumeDetails(details({ spec: { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'eu-west-1a', iops: 4000, throughput: 250 }, generation: 3, observedGeneration: 2 }));
    const lines = text.split('\n');
    // "EBS volume:" and "Generation:" are the longest labels (11 characters with the colon).
    expect(lines).toContain('Volume:     data-01');
    expect(lines).toContain('Size:       100 GiB gp3 (4000 IOPS, 250 MiB/s)');
    expect(lines).toContain('Generation: 3 (EC2 matches 2)');
    expect(lines).toContain(`Updated:    ${T}`);
  });

  it('leaves out a row whose value is empty', () => {
    const text = volumeDetails(details({ status: { state: 'available', attempts: 0, updatedAt: T, message: '' } }));
    expect(text).not.toMatch(/^Message:/m);
  });

  it('names the generation EC2 matches whenever the API gives one, 0 included, and the generation alone otherwise', () => {
    expect(volumeDetails(details({ observedGeneration: 0 })).split('\n')).toContain('Generation: 1 (EC2 matches 0)');
    expect(volumeDetails(details()).split('\n')).toContain('Generation: 1');
  });
});

describe('an attachment on one line', () => {
  it('names the device asked for until one is allocated', () => {
    const attachment: AttachmentView = {
      volumeId: 'data-01',
      instanceId: 'i-0123456789abcdef0',
      life: 'alive',
      requestedDevice: '/dev/sdf',
      generation: 1,
      status: { state: 'pending', attempts: 0, updatedAt: T },
      createdAt: T,
    };
    expect(attachmentLine(attachment)).toBe('data-01 → i-0123456789abcdef0: pending, alive, /dev/sdf');
  });
});

describe('an API error', () => {
  it('names an issue of the body as a whole as (body)', () => {
    const error = new ApiError(400, {
      type: 'about:blank',
      title: 'Bad Request',
      status: 400,
      detail: 'The request body is not valid.',
      errors: [{ path: '', message: 'Expected object, received string' }],
    }, 'bad request');
    expect(describeError(error).split('\n')).toContain('  (body): Expected object, received string');
  });
});
