import { describe, expect, it } from 'vitest';
import { keyNamesRecord, keyOf, keyString, tableKey, type AttachmentRecord } from '../../lib/domain/records.js';

describe('record keys', () => {
  const attachment: AttachmentRecord = {
    kind: 'attachment',
    volumeId: 'data-1',
    instanceId: 'i-0123456789abcdef0',
    life: 'alive',
    status: { state: 'pending', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
    version: 1,
    createdAt: '2026-01-01T00:00:00.000Z',
  };

  it('maps volumes and attachments onto one partition per volume', () => {
    expect(tableKey({ kind: 'volume', volumeId: 'data-1' })).toEqual({ pk: 'VOLUME#data-1', sk: 'VOLUME' });
    expect(tableKey(keyOf(attachment))).toEqual({ pk: 'VOLUME#data-1', sk: 'ATTACHMENT#i-0123456789abcdef0' });
  });

  it('gives each record a distinct string key', () => {
    expect(keyString(keyOf(attachment))).toBe('attachment/data-1/i-0123456789abcdef0');
    expect(keyString({ kind: 'volume', volumeId: 'data-1' })).toBe('volume/data-1');
  });

  it('says a key names a record only when every id it holds is non-empty', () => {
    expect(keyNamesRecord({ kind: 'volume', volumeId: 'data-1' })).toBe(true);
    expect(keyNamesRecord(keyOf(attachment))).toBe(true);
    expect(keyNamesRecord({ kind: 'volume', volumeId: '' })).toBe(false);
    expect(keyNamesRecord({ kind: 'attachment', volumeId: '', instanceId: 'i-0123456789abcdef0' })).toBe(false);
    expect(keyNamesRecord({ kind: 'attachment', volumeId: 'data-1', instanceId: '' })).toBe(false);
  });
});
