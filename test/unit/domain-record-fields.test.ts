import { describe, expect, it } from 'vitest';
import { fieldPath, parseRecord, validAttachments } from '../../lib/domain/validation.js';

const at = '2026-01-01T00:00:00.000Z';
const attachment = { kind: 'attachment', volumeId: 'data-1', instanceId: 'i-0123456789abcdef0', life: 'alive', status: { state: 'pending', attempts: 0, updatedAt: at }, version: 1, createdAt: at };
const volume = { kind: 'volume', volumeId: 'data-1', spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, life: 'alive', generation: 1, status: { state: 'pending', attempts: 0, updatedAt: at }, version: 1, createdAt: at };

describe('record fields', () => {
  it("judges an attachment's retriedGeneration against generation 1 when the record names none", () => {
    expect(parseRecord({ ...attachment, retriedGeneration: 1 })).toMatchObject({ ok: true, value: { generation: 1, retriedGeneration: 1 } });
    expect(parseRecord({ ...attachment, retriedGeneration: 2 })).toEqual({ ok: false, issues: [{ path: 'retriedGeneration', message: "is 2, past the record's generation 1" }] });
  });

  it('keeps of the records read under attachment keys only the valid attachments, as parsed', () => {
    const valid = validAttachments([attachment, volume, { ...attachment, instanceId: 'i-0fedcba9876543210', life: 'gone' }, null]);
    expect(valid).toEqual([{ ...attachment, generation: 1 }]);
  });

  it('writes a path that begins with an array index from the index alone', () => {
    expect(fieldPath([0, 'spec', 'sizeGiB'])).toBe('0.spec.sizeGiB');
    expect(fieldPath([2])).toBe('2');
  });
});
