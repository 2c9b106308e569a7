import { beforeEach, describe, expect, it } from 'vitest';
import { createApiHandler } from '../../lib/api/handler.js';
import { MAX_UNKNOWN_FIELDS_LISTED } from '../../lib/domain/validation.js';
import { localLambdaContext, toProxyEvent } from '../../lib/api/node-server.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { MAX_PATH_KEY_CHARS } from '../../lib/domain/validation.js';
import { API } from '../../lib/settings.js';
import { ProblemSchema, VolumeDetailsSchema, VolumeListSchema, AttachmentSchema, AttachmentListSchema } from '../../lib/api/schemas.js';
import { entityTag } from '../../lib/api/preconditions.js';
import { apiHarness, INSTANCE_A, INSTANCE_B, type ApiHarness, type ApiResponse, GP3 } from './api-fixtures.js';

/** Asserts an RFC 9457 problem response and returns its body. */
function expectProblem(response: ApiResponse, status: number) {
  expect(response.statusCode).toBe(status);
  expect(response.contentType).toBe('application/problem+json');
  const problem = ProblemSchema.parse(response.json);
  expect(problem.status).toBe(status);
  expect(problem.type).toMatch(/^urn:ebs-provisioner:problem:/);
  expect(problem.detail.length).toBeGreaterThan(0);
  return problem;
}

describe('API handler', () => {
  let api: ApiHarness;

  beforeEach(() => {
    api = apiHarness();
  });

  /** Sends `json` (or `text`) base64-encoded, as API Gateway passes a body it treats as binary. */
  const callBase64 = async (request: { method: string; url: string; text: string; contentType?: string }): Promise<ApiResponse> => {
    const headers = request.contentType ? { 'Content-Type': request.contentType } : {};
    const event = { ...toProxyEvent({ method: request.method, url: request.url, headers }), body: Buffer.from(request.text, 'utf8').toString('base64'), isBase64Encoded: true };
    const result = await api.handler(event, localLambdaContext(event.requestContext.requestId));
    const contentType = Object.entries(result.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    return { ...result, json: result.body ? JSON.parse(result.body) : undefined, contentType: contentType as string | undefined };
  };

  describe('success paths', () => {
    it('creates a volume (201 with Location), repeats it (200), and shows it', async () => {
      const created = await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      expect(created.statusCode).toBe(201);
      expect(created.contentType).toBe('application/json');
      expect(created.headers?.Location).toBe('volumes/data-01');
      // Resolved as a client resolves it, under the deployed stage.
      expect(new URL(String(created.headers?.Location), 'https://abc.execute-api.us-east-1.amazonaws.com/v1/volumes').href).toBe('https://abc.execute-api.us-east-1.amazonaws.com/v1/volumes/data-01');
      expect(VolumeDetailsSchema.parse(created.json)).toMatchObject({ volumeId: 'data-01', status: { state: 'pending' } });

      const repeated = await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      expect(repeated.statusCode).toBe(200);
      // Sent to `…/volumes/`, the reference is relative to that.
      const slashed = await api.call({ method: 'POST', url: '/volumes/', json: { volumeId: 'data-01', spec: GP3 } });
      expect(new URL(String(slashed.headers?.Location), 'https://abc.execute-api.us-east-1.amazonaws.com/v1/volumes/').href).toBe('https://abc.execute-api.us-east-1.amazonaws.com/v1/volumes/data-01');

      const shown = await api.call({ method: 'GET', url: '/volumes/data-01' });
      expect(shown.statusCode).toBe(200);
      expect(VolumeDetailsSchema.parse(shown.json).attachments).toEqual([]);
    });

    it('lists, patches, attaches, detaches and deletes', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-02', spec: GP3 } });

      const page = await api.call({ method: 'GET', url: '/volumes?limit=1' });
      expect(page.statusCode).toBe(200);
      const list = VolumeListSchema.parse(page.json);
      expect(list.items).toHaveLength(1);
      const next = await api.call({ method: 'GET', url: `/volumes?limit=1&cursor=${encodeURIComponent(list.cursor!)}` });
      expect(VolumeListSchema.parse(next.json).items[0]?.volumeId).not.toBe(list.items[0]?.volumeId);
      // A hand-made cursor naming a position this list does not use is a 400 naming the cursor, not the first page again.
      const handMade = Buffer.from(JSON.stringify({ filter: '|', after: 'data-01' })).toString('base64url');
      const refused = await api.call({ method: 'GET', url: `/volumes?limit=1&cursor=${handMade}` });
      expect(refused.statusCode).toBe(400);
      expect(refused.json).toMatchObject({ detail: 'the cursor is not usable: it does not fit this list', errors: [{ path: 'cursor', message: 'does not fit this list' }] });

      const patched = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { sizeGiB: 50 } });
      expect(patched.statusCode).toBe(200);
      expect(VolumeDetailsSchema.parse(patched.json)).toMatchObject({ generation: 2, spec: { sizeGiB: 50 } });

      const attached = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}` });
      expect(attached.statusCode).toBe(201);
      expect(AttachmentSchema.parse(attached.json).instanceId).toBe(INSTANCE_A);
      const again = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, json: {} });
      expect(again.statusCode).toBe(200);

      const byInstance = await api.call({ method: 'GET', url: `/instances/${INSTANCE_A}/attachments` });
      expect(AttachmentListSchema.parse(byInstance.json).items.map((a) => a.volumeId)).toEqual(['data-01']);
      const filtered = await api.call({ method: 'GET', url: `/volumes?instanceId=${INSTANCE_A}` });
      expect(VolumeListSchema.parse(filtered.json).items.map((v) => v.volumeId)).toEqual(['data-01']);

      const detached = await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}` });
      expect(detached.statusCode).toBe(202);
      expect(AttachmentSchema.parse(detached.json).life).toBe('dying');

      const deleted = await api.call({ method: 'DELETE', url: '/volumes/data-01' });
      expect(deleted.statusCode).toBe(202);
      expect(VolumeDetailsSchema.parse(deleted.json).life).toBe('dying');
    });

    it('retries an attachment in error (202), 409 when there is nothing to retry, 404 when absent', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}` });
      const url = `/volumes/data-01/attachments/${INSTANCE_A}/retry`;
      expect(expectProblem(await api.call({ method: 'POST', url }), 409).detail).toContain('not in error');
      await api.store.update({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A }, {
        status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', message: 'wrong AZ', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' },
      });
      const retried = await api.call({ method: 'POST', url });
      expect(retried.statusCode).toBe(202);
      expect(AttachmentSchema.parse(retried.json)).toMatchObject({ instanceId: INSTANCE_A, generation: 2 });
      expectProblem(await api.call({ method: 'POST', url: '/volumes/data-01/attachments/i-0fedcba9876543210/retry' }), 404);
      expectProblem(await api.call({ method: 'POST', url: '/volumes/data-01/attachments/server-1/retry' }), 400);
    });

    it('serves its OpenAPI document', async () => {
      const response = await api.call({ method: 'GET', url: '/openapi.json' });
      expect(response.statusCode).toBe(200);
      expect(response.json).toMatchObject({ openapi: '3.0.3', paths: { '/volumes': {} } });
    });

    it('marks every answer, success or problem, as not to be stored: a status changes behind any cache', async () => {
      const answers = [
        await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } }),
        await api.call({ method: 'GET', url: '/volumes/data-01' }),
        await api.call({ method: 'GET', url: '/volumes' }),
        await api.call({ method: 'GET', url: '/openapi.json' }),
        await api.call({ method: 'GET', url: '/volumes/missing' }),
        await api.call({ method: 'POST', url: '/volumes', json: { spec: { ...GP3, sizeGiB: -1 } } }),
        await api.call({ method: 'HEAD', url: '/volumes' }),
      ];
      api.store.failNext('get', new Error('connection reset by table'));
      answers.push(await api.call({ method: 'GET', url: '/volumes/data-01' }));
      expect(answers.map((answer) => answer.statusCode)).toEqual([201, 200, 200, 200, 404, 400, 405, 500]);
      for (const answer of answers) expect(answer.headers?.['Cache-Control']).toBe('no-store');
    });

    it('accepts a trailing slash and mixed-case headers', async () => {
      const response = await api.call({
        method: 'POST',
        url: '/volumes/',
        headers: { 'CONTENT-TYPE': 'application/json; charset=utf-8' },
        body: JSON.stringify({ spec: GP3 }),
      });
      expect(response.statusCode).toBe(201);
    });

    it('reads the media type in any case (RFC 9110 §8.3.1), for required and optional bodies', async () => {
      const created = await api.call({
        method: 'POST',
        url: '/volumes',
        headers: { 'Content-Type': 'Application/JSON' },
        body: JSON.stringify({ volumeId: 'data-01', spec: GP3 }),
      });
      expect(created.statusCode).toBe(201);
      const attached = await api.call({
        method: 'PUT',
        url: `/volumes/data-01/attachments/${INSTANCE_A}`,
        headers: { 'content-type': 'APPLICATION/JSON ; Charset=UTF-8' },
        body: JSON.stringify({ device: '/dev/sdf' }),
      });
      expect(attached.statusCode).toBe(201);
      expect(AttachmentSchema.parse(attached.json).requestedDevice).toBe('/dev/sdf');
    });

    it('reads a blank optional body as none, as on the routes that take no body: an attach with the device chosen by the system', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const attached = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'content-type': 'application/json' }, body: ' \n' });
      expect(attached.statusCode).toBe(201);
      expect(AttachmentSchema.parse(attached.json)).not.toHaveProperty('requestedDevice');
      const again = await callBase64({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, text: '\n' });
      expect(again.statusCode).toBe(200);
      // A body a route requires is not there when blank.
      expectProblem(await api.call({ method: 'PATCH', url: '/volumes/data-01', headers: { 'content-type': 'application/json' }, body: ' ' }), 400);
    });

    it('takes a structured-syntax +json media type (RFC 6839), such as application/merge-patch+json, and still refuses one that is not JSON', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const patched = await api.call({ method: 'PATCH', url: '/volumes/data-01', headers: { 'Content-Type': 'application/merge-patch+json' }, body: JSON.stringify({ sizeGiB: 50 }) });
      expect(patched.statusCode).toBe(200);
      expect(VolumeDetailsSchema.parse(patched.json)).toMatchObject({ generation: 2, spec: { sizeGiB: 50 } });
      const writes = api.store.writes;
      const refused = expectProblem(await api.call({ method: 'PATCH', url: '/volumes/data-01', headers: { 'Content-Type': 'application/merge-patch+xml' }, body: JSON.stringify({ sizeGiB: 60 }) }), 415);
      expect(refused.errors).toEqual([{ path: 'Content-Type', message: 'must be application/json' }]);
      expect(api.store.writes).toBe(writes);
    });

    it('forces a detach with force=true in the query, and reads force=false as a plain detach', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } } });
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-02', spec: GP3, attachTo: { instanceId: INSTANCE_A } } });
      const forced = await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}?force=true` });
      expect(forced.statusCode).toBe(202);
      expect(AttachmentSchema.parse(forced.json)).toMatchObject({ life: 'dying', forceDetach: true });
      const plain = await api.call({ method: 'DELETE', url: `/volumes/data-02/attachments/${INSTANCE_A}?force=false` });
      expect(plain.statusCode).toBe(202);
      expect(AttachmentSchema.parse(plain.json)).not.toHaveProperty('forceDetach');
    });

    it('says what force must be when it is neither true nor false', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } } });
      const problem = expectProblem(await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}?force=TRUE` }), 400);
      expect(problem.errors).toEqual([{ path: 'force', message: 'must be true or false' }]);
      expect(problem.detail).toBe('the query string is not valid: force: must be true or false');
    });

    it('reads a base64-encoded body (API Gateway isBase64Encoded) as the JSON it encodes', async () => {
      const created = await callBase64({ method: 'POST', url: '/volumes', contentType: 'application/json', text: JSON.stringify({ volumeId: 'data-01', spec: GP3 }) });
      expect(created.statusCode).toBe(201);
      expect(VolumeDetailsSchema.parse(created.json)).toMatchObject({ volumeId: 'data-01', spec: GP3 });
    });
  });

  describe('bad input is a 4xx with field messages and writes nothing', () => {
    const cases: Array<{ name: string; request: Parameters<ApiHarness['call']>[0]; status: number; paths?: string[] }> = [
      { name: 'wrong type', request: { method: 'POST', url: '/volumes', json: { spec: { ...GP3, sizeGiB: '20' } } }, status: 400, paths: ['spec.sizeGiB'] },
      { name: 'missing field', request: { method: 'POST', url: '/volumes', json: { spec: { volumeType: 'gp3' } } }, status: 400, paths: ['spec.sizeGiB'] },
      { name: 'unknown top-level field', request: { method: 'POST', url: '/volumes', json: { spec: GP3, size: 3 } }, status: 400, paths: ['size'] },
      { name: 'unknown spec field', request: { method: 'POST', url: '/volumes', json: { spec: { ...GP3, colour: 'red' } } }, status: 400, paths: ['spec.colour'] },
      { name: 'out of range', request: { method: 'POST', url: '/volumes', json: { spec: { ...GP3, sizeGiB: 0 } } }, status: 400, paths: ['spec.sizeGiB'] },
      { name: 'not an availability zone name', request: { method: 'POST', url: '/volumes', json: { spec: { ...GP3, availabilityZone: 'US-EAST-1A' } } }, status: 400, paths: ['spec.availabilityZone'] },
      { name: 'unknown volume type', request: { method: 'POST', url: '/volumes', json: { spec: { ...GP3, volumeType: 'gp9' } } }, status: 400, paths: ['spec.volumeType'] },
      { name: 'invalid attach instance id', request: { method: 'POST', url: '/volumes', json: { spec: GP3, attachTo: { instanceId: 'server-1' } } }, status: 400, paths: ['attachTo.instanceId'] },
      { name: 'invalid volume id in body', request: { method: 'POST', url: '/volumes', json: { volumeId: 'has space', spec: GP3 } }, status: 400, paths: ['volumeId'] },
      { name: 'body is not an object', request: { method: 'POST', url: '/volumes', json: [1, 2] }, status: 400 },
      { name: 'no body', request: { method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' } }, status: 400 },
      { name: 'malformed JSON', request: { method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body: '{"spec": {' }, status: 400 },
      { name: 'wrong content type', request: { method: 'POST', url: '/volumes', headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ spec: GP3 }) }, status: 415, paths: ['Content-Type'] },
      { name: 'another content type in upper case', request: { method: 'POST', url: '/volumes', headers: { 'content-type': 'Application/XML' }, body: JSON.stringify({ spec: GP3 }) }, status: 415, paths: ['Content-Type'] },
      { name: 'a content type that only starts like JSON', request: { method: 'POST', url: '/volumes', headers: { 'content-type': 'application/jsonp' }, body: JSON.stringify({ spec: GP3 }) }, status: 415, paths: ['Content-Type'] },
      { name: 'missing content type', request: { method: 'POST', url: '/volumes', body: JSON.stringify({ spec: GP3 }) }, status: 415 },
      {
        name: 'oversized body',
        request: { method: 'POST', url: '/volumes', json: { spec: { ...GP3, tags: { big: 'x'.repeat(API.maxBodyBytes) } } } },
        status: 413,
      },
      { name: 'unknown patch field', request: { method: 'PATCH', url: '/volumes/data-01', json: { sizeGiB: 40, volumeId: 'data-02' } }, status: 400, paths: ['volumeId'] },
      { name: 'patch past the type\'s limits', request: { method: 'PATCH', url: '/volumes/data-01', json: { sizeGiB: 70_000 } }, status: 400, paths: ['sizeGiB'] },
      { name: 'patch with an ownership tag key', request: { method: 'PATCH', url: '/volumes/data-01', json: { tags: { 'ebs-provisioner:owner': 'other-stack' } } }, status: 400, paths: ['tags["ebs-provisioner:owner"]'] },
      { name: 'patch with an empty tag key', request: { method: 'PATCH', url: '/volumes/data-01', json: { tags: { '': 'x' } } }, status: 400, paths: ['tags[""]'] },
      { name: 'patch with an aws: tag key', request: { method: 'PATCH', url: '/volumes/data-01', json: { tags: { 'aws:cost': 'x' } } }, status: 400, paths: ['tags["aws:cost"]'] },
      { name: 'patch with a tag value of forbidden characters', request: { method: 'PATCH', url: '/volumes/data-01', json: { tags: { team: 'a;b' } } }, status: 400, paths: ['tags.team'] },
      { name: 'invalid path volume id', request: { method: 'GET', url: '/volumes/bad%20id' }, status: 400, paths: ['volumeId'] },
      { name: 'invalid path instance id', request: { method: 'PUT', url: '/volumes/data-01/attachments/not-an-instance' }, status: 400, paths: ['instanceId'] },
      { name: 'invalid device', request: { method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, json: { device: 'sdf' } }, status: 400, paths: ['device'] },
      // Two-letter names EC2 refuses: after /dev/xvddx, and from /dev/xvdea on.
      { name: 'device after /dev/xvddx', request: { method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, json: { device: '/dev/xvddy' } }, status: 400, paths: ['device'] },
      { name: 'device of two letters starting with e', request: { method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, json: { device: '/dev/xvdea' } }, status: 400, paths: ['device'] },
      {
        name: 'create attached at a device EC2 refuses',
        request: { method: 'POST', url: '/volumes', json: { volumeId: 'data-02', spec: GP3, attachTo: { instanceId: INSTANCE_A, device: '/dev/xvdea' } } },
        status: 400,
        paths: ['attachTo.device'],
      },
      { name: 'unknown query parameter', request: { method: 'GET', url: '/volumes?sort=asc' }, status: 400, paths: ['sort'] },
      { name: 'query parameter on a route that takes none', request: { method: 'DELETE', url: '/volumes/data-01?force=true' }, status: 400, paths: ['force'] },
      { name: 'force neither true nor false', request: { method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}?force=yes` }, status: 400, paths: ['force'] },
      { name: 'unknown query parameter of a detach', request: { method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}?forced=true` }, status: 400, paths: ['forced'] },
      { name: 'limit out of range', request: { method: 'GET', url: '/volumes?limit=1000' }, status: 400, paths: ['limit'] },
      { name: 'limit not a number', request: { method: 'GET', url: '/volumes?limit=ten' }, status: 400, paths: ['limit'] },
      { name: 'repeated query parameter', request: { method: 'GET', url: '/volumes?state=pending&state=error' }, status: 400, paths: ['state'] },
      // Named as a field path names a key, as an unknown one is: a long name by its start and its end.
      { name: 'repeated query parameter holding "."', request: { method: 'GET', url: '/volumes?a.b=1&a.b=2' }, status: 400, paths: ['["a.b"]'] },
      { name: 'repeated query parameter of a long name', request: { method: 'GET', url: `/volumes?${'q'.repeat(3000)}=1&${'q'.repeat(3000)}=2` }, status: 400, paths: [`["${'q'.repeat(MAX_PATH_KEY_CHARS / 2 - 1)}…${'q'.repeat(MAX_PATH_KEY_CHARS / 2)}"]`] },
      { name: 'unknown state filter', request: { method: 'GET', url: '/volumes?state=sleeping' }, status: 400, paths: ['state'] },
      // Named as the domain's own validation names it.
      { name: 'empty tag key', request: { method: 'POST', url: '/volumes', json: { spec: { ...GP3, tags: { '': 'x' } } } }, status: 400, paths: ['spec.tags[""]'] },
    ];

    for (const { name, request, status, paths } of cases) {
      it(name, async () => {
        await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
        const before = await api.call({ method: 'GET', url: '/volumes/data-01' });
        const writes = api.store.writes;

        const problem = expectProblem(await api.call(request), status);
        if (paths) expect([...new Set(problem.errors.map((e) => e.path))]).toEqual(paths);
        if (status === 400) expect(problem.errors.length).toBeGreaterThan(0);

        expect(api.store.writes).toBe(writes);
        expect((await api.call({ method: 'GET', url: '/volumes/data-01' })).json).toEqual(before.json);
      });
    }

    it('refuses a body of JSON null as null, on every route that takes a body: not as no body (an attach, or "a body is required")', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const writes = api.store.writes;
      for (const [method, url] of [
        ['POST', '/volumes'],
        ['PATCH', '/volumes/data-01'],
        ['PUT', `/volumes/data-01/attachments/${INSTANCE_A}`],
      ] as const) {
        const problem = expectProblem(await api.call({ method, url, body: 'null', headers: { 'content-type': 'application/json' } }), 400);
        expect(problem.type, `${method} ${url}`).toBe('urn:ebs-provisioner:problem:validation-failed');
        expect(problem.errors, `${method} ${url}`).toEqual([{ path: '', message: 'must be a JSON object, not null' }]);
        expect(problem.detail, `${method} ${url}`).toBe('the request body is not valid: must be a JSON object, not null');
      }
      expect(api.store.writes).toBe(writes);
      expect((await api.call({ method: 'GET', url: '/volumes/data-01' })).json).toMatchObject({ attachments: [] });
      // No body at all is still none: the attach it asks for.
      expect((await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}` })).statusCode).toBe(201);
    });

    it('names an empty patch as asking for no change, writing nothing', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const writes = api.store.writes;
      const problem = expectProblem(await api.call({ method: 'PATCH', url: '/volumes/data-01', json: {} }), 400);
      expect(problem.type).toBe('urn:ebs-provisioner:problem:validation-failed');
      const fields = 'sizeGiB, volumeType, iops, throughput, tags, availabilityZone, placementInstanceId, snapshotId, encrypted, kmsKeyId, multiAttach';
      expect(problem.errors).toEqual([{ path: '', message: `give at least one of ${fields}` }]);
      expect(problem.detail).toBe(`the request body is not valid: give at least one of ${fields}`);
      expect(api.store.writes).toBe(writes);
    });

    it('names a patch of fields it cannot change by those fields alone, not as asking for no change', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const problem = expectProblem(await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { volumeId: 'data-02' } }), 400);
      expect(problem.errors).toEqual([{ path: 'volumeId', message: 'is not a known field' }]);
    });

    it('refuses a query parameter named __proto__ as unknown, as API Gateway passes it (a key of the parsed event)', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const base = toProxyEvent({ method: 'GET', url: '/volumes/data-01' });
      const event = {
        ...base,
        queryStringParameters: JSON.parse('{"__proto__": "x"}') as Record<string, string>,
        multiValueQueryStringParameters: JSON.parse('{"__proto__": ["x"]}') as Record<string, string[]>,
      };
      const result = await api.handler(event, localLambdaContext(base.requestContext.requestId));
      expect(result.statusCode).toBe(400);
      expect(JSON.parse(result.body)).toMatchObject({ errors: [{ path: '__proto__', message: 'is not a known field' }] });
    });

    it('changes the placement of a volume not created yet, bumping the generation', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const response = await api.call({ method: 'PATCH', url: '/volumes/data-01', json: { availabilityZone: 'us-east-1b' } });
      expect(response.statusCode).toBe(200);
      expect(response.json).toMatchObject({ spec: { ...GP3, availabilityZone: 'us-east-1b' }, generation: 2 });
    });

    it('says which field is missing and what is wrong', async () => {
      const problem = expectProblem(await api.call({ method: 'POST', url: '/volumes', json: { spec: { volumeType: 'gp3' } } }), 400);
      expect(problem.errors).toEqual([{ path: 'spec.sizeGiB', message: 'is required' }]);
      expect(problem.detail).toBe('the request body is not valid: spec.sizeGiB: is required');
    });

    it('says a missing field of a few values is required, and which values it takes, not that it is an invalid option', async () => {
      const problem = expectProblem(await api.call({ method: 'POST', url: '/volumes', json: { spec: { sizeGiB: 20, availabilityZone: 'us-east-1a' } } }), 400);
      expect(problem.errors).toEqual([{ path: 'spec.volumeType', message: 'is required: one of gp2, gp3, io1, io2, st1, sc1, standard' }]);
      // A value outside them is named as such.
      const wrong = expectProblem(await api.call({ method: 'POST', url: '/volumes', json: { spec: { sizeGiB: 20, volumeType: 'gp9', availabilityZone: 'us-east-1a' } } }), 400);
      expect(wrong.errors).toEqual([{ path: 'spec.volumeType', message: expect.stringMatching(/^Invalid option/) }]);
    });

    it('takes limit only as plain decimal digits from 1 to 100, and says so', async () => {
      for (const limit of ['0', '101', '1000', '-1', '1.5', '1e1', '0x10', '%201', '1%20', '', 'ten']) {
        const problem = expectProblem(await api.call({ method: 'GET', url: `/volumes?limit=${limit}` }), 400);
        expect(problem.detail, limit).toBe('the query string is not valid: limit: must be a whole number from 1 to 100');
        expect(problem.errors, limit).toEqual([{ path: 'limit', message: 'must be a whole number from 1 to 100' }]);
      }
      for (const limit of ['1', '100', '007']) {
        expect((await api.call({ method: 'GET', url: `/volumes?limit=${limit}` })).statusCode, limit).toBe(200);
      }
    });

    it('names an unsupported media type as such, with the type given', async () => {
      const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'content-type': 'Text/Plain' }, body: '{}' });
      const problem = expectProblem(response, 415);
      expect(problem.type).toBe('urn:ebs-provisioner:problem:unsupported-media-type');
      expect(problem.detail).toBe('send the body as application/json (Content-Type was Text/Plain)');
      expect(problem.errors).toEqual([{ path: 'Content-Type', message: 'must be application/json' }]);
    });

    it('names malformed JSON as such', async () => {
      const response = await api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body: '{"spec":' });
      const problem = expectProblem(response, 400);
      expect(problem.type).toBe('urn:ebs-provisioner:problem:malformed-json');
      expect(problem.detail).toMatch(/^the request body is not valid JSON/);
    });

    it('answers the largest body it takes, full of invalid tags, with the count of tags as the one issue', async () => {
      const tags: Record<string, string> = {};
      const bodyOf = () => JSON.stringify({ volumeId: 'data-01', spec: { ...GP3, tags } });
      // Each tag `,"aws:<i>":""` adds its key's length and 6 bytes.
      for (let i = 0, bytes = Buffer.byteLength(bodyOf()); bytes < API.maxBodyBytes - 20; i++) {
        tags[`aws:${i}`] = '';
        bytes += `aws:${i}`.length + 6;
      }
      const count = Object.keys(tags).length;
      expect(count).toBeGreaterThan(10_000);
      const response = await api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body: bodyOf() });
      const problem = expectProblem(response, 400);
      expect(problem.detail).toBe(`the request body is not valid: spec.tags: at most 48 tags, got ${count}`);
      expect(problem.errors).toEqual([{ path: 'spec.tags', message: `at most 48 tags, got ${count}` }]);
      expect(Buffer.byteLength(response.body ?? '')).toBeLessThan(1024);
      expect(api.store.all()).toEqual([]);
    });

    it.each([
      ['POST', '/volumes', (tags: string) => `{"spec":{"sizeGiB":20,"volumeType":"gp3","availabilityZone":"us-east-1a","tags":{${tags}}}}`, 'spec.tags'],
      ['PATCH', '/volumes/data-01', (tags: string) => `{"tags":{${tags}}}`, 'tags'],
    ] as const)('answers %s %s with the largest body of tags whose values are no strings with the count of tags as the one issue, not one per tag', async (method, url, bodyOf, path) => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const writes = api.store.writes;
      const tags: string[] = [];
      for (let i = 0, bytes = 100; bytes < API.maxBodyBytes; i++) bytes += tags[tags.push(`"${i}":0`) - 1]!.length + 1;
      const response = await api.call({ method, url, headers: { 'content-type': 'application/json' }, body: bodyOf(tags.join(',')) });
      const problem = expectProblem(response, 400);
      expect(problem.errors).toEqual([{ path, message: `at most 48 tags, got ${tags.length}` }]);
      expect(Buffer.byteLength(response.body ?? '')).toBeLessThan(1024);
      expect(api.store.writes).toBe(writes);
    });

    it.each([
      ['POST', '/volumes', (fields: string) => `{"spec":{"sizeGiB":20,"volumeType":"gp3",${fields}}}`, 'spec', 'is not a known field'],
      ['GET', '/volumes', (fields: string) => `{${fields}}`, '', 'is not a known field: this route takes no body'],
    ] as const)('answers %s %s with the largest body full of unknown fields with the first ones named and the rest counted: a small answer', async (method, url, bodyOf, parent, message) => {
      const fields: string[] = [];
      for (let i = 0, bytes = 100; bytes < API.maxBodyBytes; i++) bytes += fields[fields.push(`"${i}":0`) - 1]!.length + 1;
      const response = await api.call({ method, url, headers: { 'content-type': 'application/json' }, body: bodyOf(fields.join(',')) });
      const { errors } = expectProblem(response, 400);
      const named = (key: string) => `${parent}["${key}"]`;
      expect(errors.slice(0, 2)).toEqual([{ path: named('0'), message }, { path: named('1'), message }]);
      expect(errors).toHaveLength(MAX_UNKNOWN_FIELDS_LISTED + 1);
      expect(errors.at(-1)).toEqual({ path: parent, message: `and ${fields.length - MAX_UNKNOWN_FIELDS_LISTED} more unknown fields` });
      expect(Buffer.byteLength(response.body ?? '')).toBeLessThan(16 * 1024);
    });

    it('names a tag key holding "." bracketed and quoted, and a key of many KB by its start and its end: an answer far smaller than the body', async () => {
      const dotted = expectProblem(await api.call({ method: 'POST', url: '/volumes', json: { spec: { ...GP3, tags: { 'team.name': 'v'.repeat(300) } } } }), 400);
      expect(dotted.errors).toEqual([{ path: 'spec.tags["team.name"]', message: 'tag value must be at most 256 characters, got 300' }]);
      const huge = 'k'.repeat(API.maxBodyBytes / 2 - 100);
      const start = 'k'.repeat(MAX_PATH_KEY_CHARS / 2 - 1);
      const shown = `["${start}…${'k'.repeat(MAX_PATH_KEY_CHARS / 2)}"]`;
      const bodies = [
        [`{"spec":{"sizeGiB":20,"volumeType":"gp3","availabilityZone":"us-east-1a","tags":{"${huge}":"v"}}}`, [{ path: `spec.tags${shown}`, message: `tag key must be 1–127 characters, got ${huge.length}` }]],
        // Two keys alike but for their last character read apart.
        [`{"spec":${JSON.stringify(GP3)},"${huge}":0,"${huge}x":0}`, [{ path: shown, message: 'is not a known field' }, { path: `["${start}…${'k'.repeat(MAX_PATH_KEY_CHARS / 2 - 1)}x"]`, message: 'is not a known field' }]],
      ] as const;
      for (const [body, expected] of bodies) {
        const response = await api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body });
        expect(expectProblem(response, 400).errors).toEqual(expected);
        expect(Buffer.byteLength(response.body ?? '')).toBeLessThan(4 * 1024);
      }
      expect(api.store.writes).toBe(0);
    });

    it('takes the largest valid request even with every character escaped, astral ones as surrogate pairs', async () => {
      // U+20000 is a letter (one character) of two UTF-16 code units.
      const astral = (count: number) => '\u{20000}'.repeat(count);
      const tags = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [astral(124) + String(i).padStart(3, '0'), astral(256)]));
      const spec = { sizeGiB: 100, volumeType: 'io2', iops: 5000, availabilityZone: 'us-east-1a', encrypted: true, kmsKeyId: `arn:aws:kms:us-east-1:123456789012:alias/${'k'.repeat(250)}`, snapshotId: 'snap-0123456789abcdef0', multiAttach: true, tags };
      // Every string escaped code unit by code unit: 6 bytes each, 12 for an astral character.
      const escapeAll = (json: string) =>
        json.replace(/"(?:[^"\\]|\\.)*"/g, (quoted) => `"${(JSON.parse(quoted) as string).split('').map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`);
      const body = escapeAll(JSON.stringify({ volumeId: 'v'.repeat(128), spec, attachTo: { instanceId: INSTANCE_A, device: '/dev/xvdba' } }));
      expect(Buffer.byteLength(body)).toBeGreaterThan(48 * 380 * 12);
      const response = await api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body });
      expect(response.statusCode, response.body).toBe(201);
      expect(Object.keys((response.json as { spec: { tags: object } }).spec.tags)).toHaveLength(48);
    });

    it('refuses a body on a route that takes none, writing nothing; no body, an empty one or `{}` is none', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } } });
      const before = await api.call({ method: 'GET', url: '/volumes/data-01' });
      const writes = api.store.writes;
      const cases = [
        { method: 'DELETE', url: '/volumes/data-01', json: { hard: true }, errors: [{ path: 'hard', message: 'is not a known field: this route takes no body' }] },
        { method: 'POST', url: '/volumes/data-01/retry', json: { force: true, now: 1 }, errors: [{ path: 'force', message: 'is not a known field: this route takes no body' }, { path: 'now', message: 'is not a known field: this route takes no body' }] },
        { method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}`, json: [1], errors: [{ path: '', message: 'this route takes no body' }] },
        { method: 'POST', url: `/volumes/data-01/attachments/${INSTANCE_A}/retry`, body: 'force', errors: [{ path: '', message: 'this route takes no body' }] },
        { method: 'GET', url: '/volumes/data-01', json: { state: 'error' }, errors: [{ path: 'state', message: 'is not a known field: this route takes no body' }] },
      ];
      for (const { errors, ...request } of cases) {
        const problem = expectProblem(await api.call(request), 400);
        expect(problem.type, request.url).toBe('urn:ebs-provisioner:problem:validation-failed');
        expect(problem.detail, request.url).toBe(`the request body is not valid: ${errors.map(({ path, message }) => (path ? `${path}: ${message}` : message)).join('; ')}`);
        expect(problem.errors, request.url).toEqual(errors);
      }
      expect(api.store.writes).toBe(writes);
      expect((await api.call({ method: 'GET', url: '/volumes/data-01' })).json).toEqual(before.json);

      expect((await api.call({ method: 'GET', url: '/volumes/data-01', body: '' })).statusCode).toBe(200);
      expect((await api.call({ method: 'GET', url: '/volumes', body: ' \n' })).statusCode).toBe(200);
      expect((await api.call({ method: 'DELETE', url: '/volumes/data-01', json: {} })).statusCode).toBe(202);
    });

    it('refuses `__proto__` as a key anywhere in a body, naming where, instead of dropping the tag it names', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: { ...GP3, tags: { team: 'storage' } } } });
      const before = await api.call({ method: 'GET', url: '/volumes/data-01' });
      const writes = api.store.writes;
      const send = (method: string, url: string, body: string) => api.call({ method, url, headers: { 'content-type': 'application/json' }, body });
      const message = '"__proto__" cannot be a key';

      const patched = expectProblem(await send('PATCH', '/volumes/data-01', '{"tags": {"__proto__": "x"}}'), 400);
      expect(patched.type).toBe('urn:ebs-provisioner:problem:validation-failed');
      expect(patched.detail).toBe(`the request body is not valid: tags.__proto__: ${message}`);
      expect(patched.errors).toEqual([{ path: 'tags.__proto__', message }]);

      const created = expectProblem(await send('POST', '/volumes', `{"volumeId": "data-02", "spec": ${JSON.stringify(GP3).slice(0, -1)}, "tags": {"a": "b", "__proto__": "x"}}}`), 400);
      expect(created.errors).toEqual([{ path: 'spec.tags.__proto__', message }]);
      const nested = expectProblem(await send('PUT', `/volumes/data-01/attachments/${INSTANCE_A}`, '{"__proto__": {"__proto__": {}}}'), 400);
      expect(nested.errors).toEqual([{ path: '__proto__', message }, { path: '__proto__.__proto__', message }]);
      // Under an array's item, and under a key holding ".": each step named once, as a field path names it.
      const inArray = expectProblem(await send('PUT', `/volumes/data-01/attachments/${INSTANCE_A}`, '{"a.b": [0, {"__proto__": 1}]}'), 400);
      expect(inArray.errors.filter((issue) => issue.message === message)).toEqual([{ path: '["a.b"].1.__proto__', message }]);

      expect(api.store.writes).toBe(writes);
      expect((await api.call({ method: 'GET', url: '/volumes/data-01' })).json).toEqual(before.json);
    });

    it('answers a body nested as deep as the size limit allows with its 400: the search for `__proto__` keys walks it without recursion', async () => {
      // 60 000 levels of arrays in 120 KB (30 000 of objects in 180 KB): a recursive walk overflows the
      // stack (a 500). Its speed is not timed here: naming each level's path afresh would copy 1.8
      // billion path segments, which only a clock could tell apart.
      const depth = 60_000;
      const send = (method: string, url: string, body: string) => api.call({ method, url, headers: { 'content-type': 'application/json' }, body });
      const bodies = [
        '['.repeat(depth) + ']'.repeat(depth),
        `{"volumeId": "data-01", "spec": ${JSON.stringify({ ...GP3, tags: { a: 'PLACE' } }).replace('"PLACE"', '['.repeat(depth) + ']'.repeat(depth))}}`,
        '{"x":' + '{"a":'.repeat(depth / 2) + '1' + '}'.repeat(depth / 2) + '}',
      ];
      for (const body of bodies) {
        expect(body.length).toBeLessThan(API.maxBodyBytes);
        const problem = expectProblem(await send('POST', '/volumes', body), 400);
        expect(problem.type).toBe('urn:ebs-provisioner:problem:validation-failed');
      }
      // A `__proto__` deep down is still named by its whole path.
      const deep = expectProblem(await send('PUT', `/volumes/data-01/attachments/${INSTANCE_A}`, '{"a": '.repeat(3) + '{"__proto__": 1}' + '}'.repeat(3)), 400);
      expect(deep.errors).toEqual([{ path: 'a.a.a.__proto__', message: '"__proto__" cannot be a key' }]);
    });

    it('answers a body with a `__proto__` key in every level, as deep as the size limit allows, in a few kilobytes: the first ones named, the rest counted', async () => {
      const depth = Math.floor((API.maxBodyBytes - 2) / '{"__proto__":}'.length);
      const body = '{"__proto__":'.repeat(depth) + '0' + '}'.repeat(depth);
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(API.maxBodyBytes);
      const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'content-type': 'application/json' }, body });
      const { errors } = expectProblem(response, 400);
      const message = '"__proto__" cannot be a key';
      expect(errors.slice(0, 2)).toEqual([{ path: '__proto__', message }, { path: '__proto__.__proto__', message }]);
      expect(errors).toHaveLength(MAX_UNKNOWN_FIELDS_LISTED + 1);
      // A path too long to name whole keeps its start and its end.
      const fiftieth = Array.from({ length: 50 }, () => '__proto__').join('.');
      expect(errors[49]).toEqual({ path: `${fiftieth.slice(0, 99)}…${fiftieth.slice(-100)}`, message });
      expect(errors.at(-1)).toEqual({ path: '', message: `and ${depth - MAX_UNKNOWN_FIELDS_LISTED} more "__proto__" keys` });
      expect(Buffer.byteLength(response.body ?? '')).toBeLessThan(16 * 1024);
    });

    it('refuses a base64-encoded body on a route that takes none by the fields it encodes; an encoded `{}` is none', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const writes = api.store.writes;
      const problem = expectProblem(await callBase64({ method: 'POST', url: '/volumes/data-01/retry', text: '{"force":true}' }), 400);
      expect(problem.type).toBe('urn:ebs-provisioner:problem:validation-failed');
      expect(problem.errors).toEqual([{ path: 'force', message: 'is not a known field: this route takes no body' }]);
      expect(problem.detail).toBe('the request body is not valid: force: is not a known field: this route takes no body');
      expect(api.store.writes).toBe(writes);
      expect((await callBase64({ method: 'DELETE', url: '/volumes/data-01', text: '{}' })).statusCode).toBe(202);
    });

    it('measures a base64-encoded body by its decoded bytes, not by its encoded length', async () => {
      const padded = (bytes: number, volumeId: string) => {
        const json = JSON.stringify({ volumeId, spec: GP3 });
        return json + ' '.repeat(bytes - json.length);
      };
      const under = padded(Math.floor(API.maxBodyBytes * 0.9), 'data-01');
      expect(Buffer.from(under).toString('base64').length).toBeGreaterThan(API.maxBodyBytes);
      expect((await callBase64({ method: 'POST', url: '/volumes', contentType: 'application/json', text: under })).statusCode).toBe(201);
      const over = padded(API.maxBodyBytes + 1, 'data-02');
      const problem = expectProblem(await callBase64({ method: 'POST', url: '/volumes', contentType: 'application/json', text: over }), 413);
      expect(problem.detail).toBe(`the request body is ${API.maxBodyBytes + 1} bytes; the limit is ${API.maxBodyBytes} bytes`);
    });

    it('measures the body size in bytes, not characters', async () => {
      const multibyte = '€'.repeat(Math.ceil(API.maxBodyBytes / 3)); // 3 bytes each in UTF-8
      expect(multibyte.length).toBeLessThan(API.maxBodyBytes);
      const response = await api.call({ method: 'POST', url: '/volumes', json: { spec: { ...GP3, tags: { t: multibyte } } } });
      expectProblem(response, 413);
    });
  });

  describe('conflicts and missing things', () => {
    it('is 409 for the same id with another spec', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const problem = expectProblem(
        await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: { ...GP3, sizeGiB: 30 } } }),
        409,
      );
      expect(problem.type).toBe('urn:ebs-provisioner:problem:conflict');
    });

    it('is 404 for a missing volume or attachment', async () => {
      expectProblem(await api.call({ method: 'GET', url: '/volumes/nope' }), 404);
      expectProblem(await api.call({ method: 'DELETE', url: '/volumes/nope' }), 404);
      expectProblem(await api.call({ method: 'PATCH', url: '/volumes/nope', json: { sizeGiB: 30 } }), 404);
      expectProblem(await api.call({ method: 'PUT', url: `/volumes/nope/attachments/${INSTANCE_A}` }), 404);
      expectProblem(await api.call({ method: 'DELETE', url: `/volumes/nope/attachments/${INSTANCE_A}` }), 404);
    });
  });

  describe('records written straight into the table', () => {
    const clientOnly = (volumeId: string, extra: Record<string, unknown> = {}) => ({ kind: 'volume', volumeId, spec: GP3, life: 'alive', generation: 1, ...extra });

    it('reads a record without the system fields with their defaults: every answer is in its schema, none is a 500', async () => {
      api.store.putRaw(clientOnly('raw-01'));
      const pending = await api.call({ method: 'GET', url: '/volumes?state=pending' });
      expect(pending.statusCode).toBe(200);
      expect(VolumeListSchema.parse(pending.json).items.map((item) => item.volumeId)).toEqual(['raw-01']);
      const shown = await api.call({ method: 'GET', url: '/volumes/raw-01' });
      expect(shown.statusCode).toBe(200);
      expect(VolumeDetailsSchema.parse(shown.json).status).toEqual({ state: 'pending', attempts: 0, updatedAt: '' });
      expect(shown.headers?.ETag).toBe('"1"');
      expect(expectProblem(await api.call({ method: 'POST', url: '/volumes/raw-01/retry' }), 409).type).toBe('urn:ebs-provisioner:problem:conflict');
      const attached = await api.call({ method: 'PUT', url: `/volumes/raw-01/attachments/${INSTANCE_A}` });
      expect(attached.statusCode).toBe(201);
      AttachmentSchema.parse(attached.json);
      const patched = await api.call({ method: 'PATCH', url: '/volumes/raw-01', headers: { 'If-Match': '"1"' }, json: { sizeGiB: 40 } });
      expect(patched.statusCode).toBe(200);
      expect(VolumeDetailsSchema.parse(patched.json).generation).toBe(2);
    });

    it('answers 409 invalid-record with the reasons for a record that is not valid, and lists it as such', async () => {
      api.store.putRaw(clientOnly('bad', { generation: '1' }));
      api.store.putRaw({ kind: 'volume', volumeId: 'no-spec', life: 'alive', generation: 1 });
      const writes = api.store.writes;
      for (const request of [
        { method: 'GET', url: '/volumes/bad' },
        { method: 'PATCH', url: '/volumes/bad', json: { sizeGiB: 40 } },
        { method: 'POST', url: '/volumes/bad/retry' },
        { method: 'DELETE', url: '/volumes/bad' },
        { method: 'PUT', url: `/volumes/bad/attachments/${INSTANCE_A}` },
        { method: 'POST', url: '/volumes', json: { volumeId: 'no-spec', spec: GP3 } },
      ]) {
        const problem = expectProblem(await api.call(request), 409);
        expect(problem.type, request.url).toBe('urn:ebs-provisioner:problem:invalid-record');
        expect(problem.title).toBe('The record in the table is not valid');
        expect(problem.errors[0]?.path, request.url).toMatch(/^record\.(generation|spec)$/);
      }
      expect(api.store.writes).toBe(writes);
      expect(api.store.all().find((record) => record.volumeId === 'bad')?.generation).toBe('1');

      const listed = await api.call({ method: 'GET', url: '/volumes?state=error' });
      expect(VolumeListSchema.parse(listed.json).items).toEqual([
        expect.objectContaining({ volumeId: 'bad', invalid: true, status: expect.objectContaining({ state: 'error', code: 'InvalidRecord' }) }),
        expect.objectContaining({ volumeId: 'no-spec', invalid: true }),
      ]);
    });
  });

  describe('ETag and If-Match', () => {
    /** The entity tag of a record created here at generation `n` (the clock stands still). */
    const T = (n: number) => entityTag({ generation: n, createdAt: new Date(api.clock.now()).toISOString() });
    const patch = (headers: Record<string, string>, sizeGiB = 40) =>
      api.call({ method: 'PATCH', url: '/volumes/data-01', headers, json: { sizeGiB } });

    beforeEach(async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
    });

    it('answers one volume or attachment with the strong ETag of its generation; lists carry none', async () => {
      const created = await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-02', spec: GP3, attachTo: { instanceId: INSTANCE_A } } });
      expect(created.headers?.ETag).toBe(T(1));
      expect((await api.call({ method: 'GET', url: '/volumes/data-01' })).headers?.ETag).toBe(T(1));
      const patched = await patch({});
      expect(patched.statusCode).toBe(200);
      expect(patched.headers?.ETag).toBe(T(2));
      const attached = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}` });
      expect(attached.headers?.ETag).toBe(T(1));
      expect((await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}` })).headers?.ETag).toBe(T(1));
      expect((await api.call({ method: 'DELETE', url: '/volumes/data-01' })).headers?.ETag).toBe(T(2));
      expect((await api.call({ method: 'GET', url: '/volumes' })).headers).not.toHaveProperty('ETag');
    });

    it("keeps the ETag when only the system's status changes", async () => {
      await api.store.update({ kind: 'volume', volumeId: 'data-01' }, { status: { state: 'creating', attempts: 0, updatedAt: '2026-01-01T00:00:05.000Z' } });
      expect((await api.call({ method: 'GET', url: '/volumes/data-01' })).headers?.ETag).toBe(T(1));
    });

    it('PATCH with a matching If-Match (any header case) applies and returns the new ETag; `*` matches any', async () => {
      const matching = await patch({ 'IF-MATCH': T(1) });
      expect(matching.statusCode).toBe(200);
      expect(matching.headers?.ETag).toBe(T(2));
      const any = await patch({ 'if-match': '*' }, 50);
      expect(any.statusCode).toBe(200);
      expect(any.headers?.ETag).toBe(T(3));
    });

    it('a malformed or weak If-Match is 412 with the current ETag, saying what is wrong with it, and changes nothing', async () => {
      for (const [header, message] of [
        ['garbage', 'must be a list of quoted entity tags or *'],
        [`W/${T(1)}`, 'weak entity tags (W/) never match'],
      ] as const) {
        const writes = api.store.writes;
        const response = await patch({ 'If-Match': header });
        const problem = expectProblem(response, 412);
        expect(problem.type).toBe('urn:ebs-provisioner:problem:precondition-failed');
        expect(problem.detail).not.toContain('read it again');
        expect(problem.errors[0]?.message).toContain(message);
        expect(response.headers?.ETag).toBe(T(1));
        expect(api.store.writes).toBe(writes);
      }
    });

    it('a stale If-Match is 412 with the current ETag, and changes nothing', async () => {
      for (const header of [T(7), '"1"']) {
        const writes = api.store.writes;
        const response = await patch({ 'If-Match': header });
        const problem = expectProblem(response, 412);
        expect(problem.type).toBe('urn:ebs-provisioner:problem:precondition-failed');
        expect(problem.detail).toContain(`generation 1 (ETag ${T(1)})`);
        expect(problem.errors).toEqual([{ path: 'If-Match', message: `does not name the current record (ETag ${T(1)}): changed or created again since` }]);
        expect(response.headers?.ETag).toBe(T(1));
        expect(api.store.writes).toBe(writes);
      }
      expect(VolumeDetailsSchema.parse((await api.call({ method: 'GET', url: '/volumes/data-01' })).json)).toMatchObject({ generation: 1, spec: { sizeGiB: 20 } });
    });

    it('DELETE, retry and the attachment routes take If-Match too', async () => {
      expectProblem(await api.call({ method: 'DELETE', url: '/volumes/data-01', headers: { 'If-Match': T(2) } }), 412);
      expectProblem(await api.call({ method: 'POST', url: '/volumes/data-01/retry', headers: { 'If-Match': T(2) } }), 412);
      expectProblem(await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'If-Match': '*' } }), 412);
      expect((await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}` })).statusCode).toBe(201);
      expectProblem(await api.call({ method: 'POST', url: `/volumes/data-01/attachments/${INSTANCE_A}/retry`, headers: { 'If-Match': T(2) } }), 412);
      expectProblem(await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'If-Match': T(2) } }), 412);
      expect((await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'If-Match': T(1) } })).statusCode).toBe(202);
      const deleted = await api.call({ method: 'DELETE', url: '/volumes/data-01', headers: { 'If-Match': T(1) } });
      expect(deleted.statusCode).toBe(202);
      expect(deleted.json).toMatchObject({ life: 'dying' });
    });

    it('a stale or unmatchable If-Match is 412 before a refused body is looked at (RFC 9110 §13.2.1); a body refused under a matching one is its 400', async () => {
      const put = `/volumes/data-01/attachments/${INSTANCE_A}`;
      expect((await api.call({ method: 'PUT', url: put })).statusCode).toBe(201);
      const refusedBodies = [
        { method: 'PATCH', url: '/volumes/data-01', json: { sizeGiB: 'forty' } },
        { method: 'PATCH', url: '/volumes/data-01', json: { colour: 'red' } },
        { method: 'PATCH', url: '/volumes/data-01', body: '{"sizeGiB":', headers: { 'Content-Type': 'application/json' } },
        { method: 'PATCH', url: '/volumes/data-01', body: '{"sizeGiB":40}', headers: { 'Content-Type': 'text/plain' } },
        { method: 'PATCH', url: '/volumes/data-01', body: 'null', headers: { 'Content-Type': 'application/json' } },
        { method: 'DELETE', url: '/volumes/data-01', json: { force: true } },
        { method: 'POST', url: '/volumes/data-01/retry', json: { now: 1 } },
        { method: 'PUT', url: put, json: { device: 'sdf' } },
      ];
      for (const request of refusedBodies) {
        for (const ifMatch of [T(7), 'garbage']) {
          const writes = api.store.writes;
          const response = await api.call({ ...request, headers: { ...request.headers, 'If-Match': ifMatch } });
          expect(expectProblem(response, 412).type, `${request.method} ${request.url} ${ifMatch}`).toBe('urn:ebs-provisioner:problem:precondition-failed');
          expect(response.headers?.ETag).toBe(T(1));
          expect(api.store.writes).toBe(writes);
        }
        // Without If-Match, or with one that holds, the body's refusal stands.
        for (const headers of [{}, { 'If-Match': T(1) }]) {
          const status = (await api.call({ ...request, headers: { ...request.headers, ...headers } })).statusCode;
          expect([400, 415], `${request.method} ${request.url}`).toContain(status);
        }
      }
      // PUT with If-Match needs the attachment: a missing one is 412 too.
      expect(expectProblem(await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_B}`, headers: { 'If-Match': '*' }, json: { device: 'sdf' } }), 412).detail).toContain('does not exist');
      // What the route refuses before it evaluates If-Match (no such record) leaves the body's 400.
      expectProblem(await api.call({ method: 'PATCH', url: '/volumes/data-09', headers: { 'If-Match': T(7) }, json: { sizeGiB: 'forty' } }), 400);
      expectProblem(await api.call({ method: 'PUT', url: `/volumes/data-09/attachments/${INSTANCE_A}`, headers: { 'If-Match': '*' }, json: { device: 'sdf' } }), 400);
      expectProblem(await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_B}`, headers: { 'If-Match': T(7) }, json: { force: true } }), 400);
      api.store.putRaw({ kind: 'volume', volumeId: 'bad', life: 'alive', generation: '1' } as never);
      expectProblem(await api.call({ method: 'PATCH', url: '/volumes/bad', headers: { 'If-Match': T(7) }, json: { sizeGiB: 'forty' } }), 400);
    });

    it("a detach of an attachment valid once dying (a device EC2 refuses, asked for before) evaluates If-Match, a refused body's too", async () => {
      const url = `/volumes/data-01/attachments/${INSTANCE_A}`;
      api.store.putRaw({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive', requestedDevice: '/dev/xvdea', generation: 1, createdAt: new Date(api.clock.now()).toISOString() });
      const writes = api.store.writes;
      expectProblem(await api.call({ method: 'DELETE', url, headers: { 'If-Match': T(7) }, json: { force: true } }), 412);
      expectProblem(await api.call({ method: 'DELETE', url, headers: { 'If-Match': T(7) } }), 412);
      expect(api.store.writes).toBe(writes);
      const deleted = await api.call({ method: 'DELETE', url, headers: { 'If-Match': T(1) } });
      expect(deleted.statusCode).toBe(202);
      expect(deleted.json).toMatchObject({ life: 'dying', requestedDevice: '/dev/xvdea' });
    });

    it('reads repeated If-Match fields as one list, as API Gateway passes them (headers keeps only the last)', async () => {
      const event = toProxyEvent({ method: 'PATCH', url: '/volumes/data-01', headers: { 'content-type': 'application/json' }, body: '{"sizeGiB":40}' });
      event.headers['If-Match'] = T(5);
      event.multiValueHeaders['If-Match'] = [T(1), T(5)];
      const response = await api.handler(event, localLambdaContext(event.requestContext.requestId));
      expect(response.statusCode).toBe(200);
      expect(response.headers?.ETag).toBe(T(2));
    });

    it('GET ignores If-Match: only the writes take it', async () => {
      expect((await api.call({ method: 'GET', url: '/volumes/data-01', headers: { 'If-Match': T(9) } })).statusCode).toBe(200);
    });
  });

  describe('routing', () => {
    it('is 404 for an unknown route', async () => {
      const problem = expectProblem(await api.call({ method: 'GET', url: '/snapshots' }), 404);
      expect(problem.type).toBe('urn:ebs-provisioner:problem:no-such-route');
    });

    it('is 405 with Allow for a known path and another method', async () => {
      const response = await api.call({ method: 'PUT', url: '/volumes/data-01' });
      expectProblem(response, 405);
      expect(response.headers?.Allow).toBe('GET, PATCH, DELETE');
      const head = await api.call({ method: 'HEAD', url: '/volumes' });
      expectProblem(head, 405);
      expect(head.headers?.Allow).toBe('GET, POST');
      const options = await api.call({ method: 'OPTIONS', url: `/volumes/data-01/attachments/${INSTANCE_A}` });
      expect(expectProblem(options, 405).detail).toBe(`OPTIONS is not allowed on /volumes/data-01/attachments/${INSTANCE_A}; use PUT, DELETE`);
      expect(options.headers?.Allow).toBe('PUT, DELETE');
    });
  });

  describe('deployed behind a custom domain with a base path mapping', () => {
    /**
     * The event API Gateway builds for `https://ebs.example.com/<basePath><path>`, routed to the API's
     * resource `resource`: `path` keeps the base path, `resource` and `pathParameters` are the API's
     * own, and REST APIs pass path parameters percent-encoded, as sent.
     */
    const gatewayEvent = (request: { method: string; basePath: string; path: string; resource: string; pathParameters?: Record<string, string>; json?: unknown }) => {
      const sent = `/${request.basePath}${request.path}`;
      const local = toProxyEvent({
        method: request.method,
        url: sent,
        ...(request.json === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(request.json) }),
      });
      return {
        ...local,
        resource: request.resource,
        pathParameters: request.pathParameters ?? null,
        requestContext: { ...local.requestContext, domainName: 'ebs.example.com', path: sent, resourcePath: request.resource, stage: 'v1' },
      };
    };
    const callGateway = async (request: Parameters<typeof gatewayEvent>[0]): Promise<ApiResponse> => {
      const event = gatewayEvent(request);
      const result = await api.handler(event, localLambdaContext(event.requestContext.requestId));
      const contentType = Object.entries(result.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
      return { ...result, json: result.body ? JSON.parse(result.body) : undefined, contentType: contentType as string | undefined };
    };

    it('routes on the resource API Gateway matched, not on the path with its base path', async () => {
      const created = await callGateway({ method: 'POST', basePath: 'storage', path: '/volumes', resource: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      expect(created.statusCode).toBe(201);
      expect(new URL(String(created.headers?.Location), 'https://ebs.example.com/storage/volumes').href).toBe('https://ebs.example.com/storage/volumes/data-01');

      const shown = await callGateway({ method: 'GET', basePath: 'storage', path: '/volumes/data-01', resource: '/volumes/{volumeId}', pathParameters: { volumeId: 'data-01' } });
      expect(shown.statusCode).toBe(200);
      expect(VolumeDetailsSchema.parse(shown.json).volumeId).toBe('data-01');

      const attached = await callGateway({
        method: 'PUT',
        basePath: 'storage',
        path: `/volumes/data-01/attachments/${INSTANCE_A}`,
        resource: '/volumes/{volumeId}/attachments/{instanceId}',
        pathParameters: { volumeId: 'data-01', instanceId: INSTANCE_A },
      });
      expect(attached.statusCode).toBe(201);
      expect(AttachmentSchema.parse(attached.json)).toMatchObject({ volumeId: 'data-01', instanceId: INSTANCE_A });

      const listed = await callGateway({
        method: 'GET',
        basePath: 'storage',
        path: `/instances/${INSTANCE_A}/attachments`,
        resource: '/instances/{instanceId}/attachments',
        pathParameters: { instanceId: INSTANCE_A },
      });
      expect(listed.statusCode).toBe(200);
      expect(AttachmentListSchema.parse(listed.json).items.map((item) => item.volumeId)).toEqual(['data-01']);

      const document = await callGateway({ method: 'GET', basePath: 'storage', path: '/openapi.json', resource: '/openapi.json' });
      expect(document.statusCode).toBe(200);
    });

    it('under a base path that reads as a route (`volumes`) lists the volumes rather than showing a volume named `volumes`', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      const listed = await callGateway({ method: 'GET', basePath: 'volumes', path: '/volumes', resource: '/volumes' });
      expect(listed.statusCode).toBe(200);
      expect(VolumeListSchema.parse(listed.json).items.map((item) => item.volumeId)).toEqual(['data-01']);
    });

    it('decodes an id from pathParameters once, as the local server\'s path is decoded', async () => {
      await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3 } });
      for (const sent of ['%64ata-01', '%2564ata-01', 'bad%20id']) {
        const local = await api.call({ method: 'GET', url: `/volumes/${sent}` });
        const deployed = await callGateway({ method: 'GET', basePath: 'storage', path: `/volumes/${sent}`, resource: '/volumes/{volumeId}', pathParameters: { volumeId: sent } });
        expect({ sent, status: deployed.statusCode, json: deployed.json }).toEqual({ sent, status: local.statusCode, json: local.json });
      }
      expect((await api.call({ method: 'GET', url: '/volumes/%64ata-01' })).statusCode).toBe(200);
      expect(expectProblem(await api.call({ method: 'GET', url: '/volumes/%2564ata-01' }), 400).errors).toEqual([
        expect.objectContaining({ path: 'volumeId' }),
      ]);
    });
  });

  describe('server faults', () => {
    it('answers 500 as a problem without internals, and logs the cause', async () => {
      const log = new RecordingLog();
      api.store.failNext('get', new Error('connection reset by table'));
      const handler = createApiHandler({ store: api.store, clock: api.clock, log });
      const event = toProxyEvent({ method: 'GET', url: '/volumes/data-01' });
      const response = await handler(event, localLambdaContext('r-1'));
      expect(response.statusCode).toBe(500);
      expect(response.body).not.toContain('connection reset');
      expect(JSON.parse(response.body)).toMatchObject({ status: 500, type: 'urn:ebs-provisioner:problem:internal' });
      expect(log.entries).toEqual([
        expect.objectContaining({
          level: 'error',
          message: 'request failed',
          attributes: expect.objectContaining({ error: expect.objectContaining({ message: 'connection reset by table' }) }),
        }),
      ]);
    });
  });
});
