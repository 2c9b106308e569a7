/**
 * `PUT` of an attachment with `If-Match` and a refused body, on a volume or an attachment whose
 * record is not valid: the record is refused before If-Match would be evaluated, so the body keeps its 400
 * (docs/api.md: the body's refusal comes when the record is not valid) and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord } from '../../lib/domain/records.js';
import { apiHarness, INSTANCE_B, GP3 } from './api-fixtures.js';

describe('PUT of an attachment whose volume or attachment record is not valid, with If-Match and a refused body', () => {
  it('is the body\'s 400, not a 412 for the attachment that does not exist', async () => {
    const api = apiHarness();
    expect((await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } })).statusCode).toBe(201);
    const raw = (await api.store.get({ kind: 'volume', volumeId: 'data-01' })) as VolumeRecord;
    api.store.putRaw({ ...raw, life: 'sleeping' } as unknown as VolumeRecord);
    const writes = api.store.writes;
    const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_B}`, headers: { 'If-Match': '"7.stale"' }, json: { force: true } });
    expect(response.statusCode).toBe(400);
    expect((response.json as { errors: unknown }).errors).toEqual([{ path: 'force', message: expect.stringContaining('is not a known field') }]);
    expect(api.store.writes).toBe(writes);
  });

  it('is the body\'s 400 when the attachment record itself is not valid', async () => {
    const api = apiHarness();
    const created = await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_B } } });
    expect(created.statusCode).toBe(201);
    const key = { kind: 'attachment' as const, volumeId: 'data-01', instanceId: INSTANCE_B };
    const raw = (await api.store.get(key)) as AttachmentRecord;
    api.store.putRaw({ ...raw, life: 'sleeping' } as unknown as AttachmentRecord);
    const writes = api.store.writes;
    const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_B}`, headers: { 'If-Match': '"7.stale"' }, json: { force: true } });
    expect(response.statusCode).toBe(400);
    expect((response.json as { errors: unknown }).errors).toEqual([{ path: 'force', message: expect.stringContaining('is not a known field') }]);
    expect(api.store.writes).toBe(writes);
  });
});
