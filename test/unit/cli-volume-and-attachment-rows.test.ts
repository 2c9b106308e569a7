/**
 * What the CLI's tables and lines show of a volume or an attachment: where a volume is, the device an
 * attachment has, a call's wait in line for EC2's tokens, and a record in the table that is not valid
 * (listed by the API as `error (InvalidRecord)`, README's alarms table).
 */
import { describe, expect, it } from 'vitest';
import { attachmentLine, attachmentsTable, describeStatus, volumeDetails, volumesTable } from '../../cli/format.js';
import type { AttachmentView, InvalidVolumeView, VolumeDetails, VolumeView } from '../../lib/api/schemas.js';

const T = '2026-01-01T12:00:00.000Z';
const INSTANCE = 'i-0123456789abcdef0';

const volume = (extra: Partial<VolumeView> = {}): VolumeView => ({
  volumeId: 'data-01',
  spec: { sizeGiB: 100, volumeType: 'gp3', availabilityZone: 'eu-west-1a' },
  life: 'alive',
  generation: 1,
  status: { state: 'pending', attempts: 0, updatedAt: T },
  createdAt: T,
  ...extra,
});

const attachment = (extra: Partial<AttachmentView> = {}): AttachmentView => ({
  volumeId: 'data-01',
  instanceId: INSTANCE,
  life: 'alive',
  generation: 1,
  status: { state: 'pending', attempts: 0, updatedAt: T },
  createdAt: T,
  ...extra,
});

/** The cells of the table's only row, split on the two spaces between columns. */
const onlyRow = (text: string) => text.split('\n')[1]!.split(/ {2,}/);

describe('a volume in the list', () => {
  it('is placed in the AZ the volume is in once known, else the AZ its spec names, else near the instance its spec names', () => {
    expect(onlyRow(volumesTable([volume({ spec: { sizeGiB: 100, volumeType: 'gp3', placementInstanceId: INSTANCE }, availabilityZone: 'eu-west-1b' })]))[4]).toBe('eu-west-1b');
    expect(onlyRow(volumesTable([volume()]))[4]).toBe('eu-west-1a');
    expect(onlyRow(volumesTable([volume({ spec: { sizeGiB: 100, volumeType: 'gp3', placementInstanceId: INSTANCE } })]))[4]).toBe(`near ${INSTANCE}`);
  });

  it('that is not valid shows its id and its status as `error (InvalidRecord)`', () => {
    const invalid: InvalidVolumeView = { volumeId: 'data-02', invalid: true, status: { state: 'error', attempts: 0, code: 'InvalidRecord', message: 'spec.sizeGiB: too large', updatedAt: T } };
    expect(onlyRow(volumesTable([invalid]))).toEqual(['data-02', 'error (InvalidRecord)', '-', '-', '-', '-']);
  });
});

describe('a status as a person reads it', () => {
  it('names the first attempt too', () => {
    expect(describeStatus({ state: 'pending', attempts: 1, code: 'RequestLimitExceeded', updatedAt: T })).toBe('pending (attempt 1, RequestLimitExceeded)');
  });
});

describe('an attachment', () => {
  it('shows the device EC2 attached it as over the one asked for, in the table and on its line', () => {
    const attached = attachment({ requestedDevice: '/dev/sdf', device: '/dev/xvdf', status: { state: 'attached', attempts: 0, updatedAt: T } });
    expect(onlyRow(attachmentsTable([attached]))[4]).toBe('/dev/xvdf');
    expect(attachmentLine(attached)).toBe(`data-01 → ${INSTANCE}: attached, alive, /dev/xvdf`);
  });

  it('without a device shows none on its line', () => {
    expect(attachmentLine(attachment())).toBe(`data-01 → ${INSTANCE}: pending, alive`);
  });

  it("shows how long its call waits in line for EC2's tokens in the attachments table", () => {
    expect(onlyRow(attachmentsTable([attachment({ rateWait: { action: 'AttachVolume', seconds: 42 } })]))[2]).toBe('pending, ~42 s in line for AttachVolume');
  });
});

describe("a volume's details", () => {
  const details = (extra: Partial<VolumeDetails> = {}): VolumeDetails => ({ ...volume(), attachments: [], ...extra });

  it("show how long the volume's call waits in line for EC2's tokens", () => {
    expect(volumeDetails(details({ rateWait: { action: 'CreateVolume', seconds: 7 } })).split('\n')).toContain('State:      pending, ~7 s in line for CreateVolume');
  });

  it('leave out the rows of what the volume does not have yet', () => {
    const text = volumeDetails(details());
    expect(text).not.toMatch(/^(Message|EBS volume|Tags):/m);
    expect(text).not.toContain('undefined');
  });

  it('list a single attachment', () => {
    const text = volumeDetails(details({ attachments: [attachment()] }));
    expect(text).not.toContain('No attachments.');
    expect(text.split('\n').at(-1)).toMatch(new RegExp(`^data-01 +${INSTANCE} +pending`));
  });
});
