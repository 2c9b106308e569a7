/**
 * `If-Match` on the attachment routes when the request's body is refused: the precondition is
 * evaluated first (RFC 9110 §13.2.1), on the attachment as the route would act on it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { entityTag } from '../../lib/api/preconditions.js';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { apiHarness, INSTANCE_A, type ApiHarness, GP3 } from './api-fixtures.js';

const ATTACHMENT = `/volumes/data-01/attachments/${INSTANCE_A}`;
const ERROR_STATUS = { state: 'error' as const, code: 'InvalidVolume.ZoneMismatch', message: 'zone mismatch', attempts: 3, updatedAt: '2026-01-01T00:00:00.000Z' };

interface Problem {
  type: string;
  detail: string;
  errors: Array<{ path: string; message: string }>;
}

describe('If-Match on an attachment route whose body is refused', () => {
  let api: ApiHarness;
  let tag: string;
  const key = { kind: 'attachment' as const, volumeId: 'data-01', instanceId: INSTANCE_A };

  beforeEach(async () => {
    api = apiHarness();
    expect((await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } } })).statusCode).toBe(201);
    await api.store.update<AttachmentRecord>(key, { status: ERROR_STATUS });
    tag = entityTag((await api.store.get(key)) as AttachmentRecord);
  });

  const requests = [
    { method: 'POST', url: `${ATTACHMENT}/retry` },
    { method: 'DELETE', url: ATTACHMENT },
  ];

  it('is 412 naming the attachment when If-Match is stale, whatever the body, and changes nothing', async () => {
    for (const request of requests) {
      const writes = api.store.writes;
      const response = await api.call({ ...request, headers: { 'If-Match': '"7.stale"' }, json: { force: true } });
      const label = `${request.method} ${request.url}`;
      expect(response.statusCode, label).toBe(412);
      expect(response.headers?.ETag, label).toBe(tag);
      expect((response.json as Problem).detail, label).toMatch(new RegExp(`^attachment of data-01 to ${INSTANCE_A} is at generation 1 \\(ETag `));
      expect(api.store.writes, label).toBe(writes);
      // The same If-Match as the record's: the body's own refusal.
      const matching = await api.call({ ...request, headers: { 'If-Match': tag }, json: { force: true } });
      expect(matching.statusCode, label).toBe(400);
    }
    expect(await api.store.get(key)).toMatchObject({ life: 'alive', generation: 1, status: { state: 'error' } });
  });

  it('leaves the body its 400 when the attachment record is not valid: If-Match is not evaluated on a record nothing acts on', async () => {
    const raw = (await api.store.get(key)) as AttachmentRecord;
    api.store.putRaw({ ...raw, life: 'sleeping' });
    for (const request of requests) {
      const response = await api.call({ ...request, headers: { 'If-Match': '"7.stale"' }, json: { force: true } });
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(400);
      expect((response.json as Problem).errors, `${request.method} ${request.url}`).toEqual([{ path: 'force', message: expect.stringContaining('is not a known field') }]);
    }
    expect(await api.store.get(key)).toMatchObject({ life: 'sleeping' });
  });
});
