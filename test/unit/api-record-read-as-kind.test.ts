/** A record read from the table as a volume or an attachment is that kind of record, or not valid. */
import { describe, expect, it } from 'vitest';
import { readRecord } from '../../lib/api/stored-records.js';
import type { ProvisionerRecord } from '../../lib/domain/records.js';
import { GP3, INSTANCE_A } from './api-fixtures.js';

const volume = { kind: 'volume', volumeId: 'data-01', life: 'alive', generation: 1, spec: GP3 } as unknown as ProvisionerRecord;
const attachment = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive' } as unknown as ProvisionerRecord;

describe('a record read as a kind', () => {
  it('is valid as its own kind', () => {
    expect(readRecord(volume, 'volume').ok).toBe(true);
    expect(readRecord(attachment, 'attachment').ok).toBe(true);
  });

  it('is not valid as the other kind, and says what kind it must be', () => {
    expect(readRecord(attachment, 'volume')).toEqual({ ok: false, issues: [{ path: 'kind', message: 'must be volume' }], raw: attachment });
    expect(readRecord(volume, 'attachment')).toEqual({ ok: false, issues: [{ path: 'kind', message: 'must be attachment' }], raw: volume });
  });
});
