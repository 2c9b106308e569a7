/**
 * A retry of an attachment whose only fault is a requested device EC2 refuses (asked for before
 * device names were held to EC2's): the retry does not act on it (409 `invalid-record`), so under
 * a refused body its `If-Match` is not evaluated and the body keeps its 400, where a detach, which
 * marks such an attachment dying all the same, evaluates it.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { apiHarness, INSTANCE_A, type ApiHarness, GP3 } from './api-fixtures.js';

const ATTACHMENT = `/volumes/data-01/attachments/${INSTANCE_A}`;
const STALE = '"7.stale"';

describe('a retry of an attachment with a device EC2 refuses', () => {
  let api: ApiHarness;

  beforeEach(async () => {
    api = apiHarness();
    expect((await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } })).statusCode).toBe(201);
    api.store.putRaw({
      kind: 'attachment',
      volumeId: 'data-01',
      instanceId: INSTANCE_A,
      life: 'alive',
      requestedDevice: '/dev/xvdea',
      generation: 1,
      createdAt: new Date(api.clock.now()).toISOString(),
      status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', message: 'zone mismatch', attempts: 3, updatedAt: new Date(api.clock.now()).toISOString() },
    });
  });

  it('is 409 invalid-record without a body, whatever If-Match says', async () => {
    const answer = await api.call({ method: 'POST', url: `${ATTACHMENT}/retry`, headers: { 'If-Match': STALE } });
    expect(answer.statusCode).toBe(409);
    expect(answer.json).toMatchObject({ type: 'urn:ebs-provisioner:problem:invalid-record' });
  });

  it('leaves a refused body its 400 under a stale If-Match, and changes nothing', async () => {
    const writes = api.store.writes;
    const answer = await api.call({ method: 'POST', url: `${ATTACHMENT}/retry`, headers: { 'If-Match': STALE }, json: { force: true } });
    expect(answer.statusCode).toBe(400);
    expect(answer.json).toMatchObject({ errors: [{ path: 'force', message: expect.stringContaining('is not a known field') }] });
    expect(api.store.writes).toBe(writes);
  });

  it('where a detach with the same refused body and If-Match is 412', async () => {
    const answer = await api.call({ method: 'DELETE', url: ATTACHMENT, headers: { 'If-Match': STALE }, json: { colour: 'red' } });
    expect(answer.statusCode).toBe(412);
  });
});
