import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../lib/api/handler.js';
import { buildOpenApiDocument, ID_RULES_BEGIN, ID_RULES_END, renderIdRules, renderOpenApiDocument, withIdRules } from '../../lib/api/openapi.js';
import { generateVolumeId } from '../../lib/api/service.js';
import { API_GUIDE_PATH, OPENAPI_DOCUMENT_PATH } from '../../lib/api/write-openapi.js';
import { API } from '../../lib/settings.js';
import { apiHarness, INSTANCE_A } from './api-fixtures.js';

type Document = ReturnType<typeof buildOpenApiDocument>;
const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

function documentedOperations(document: Document): string[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item as object)
      .filter((key) => OPERATION_METHODS.includes(key))
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** A concrete path for a template, with valid ids in its placeholders. */
function concretePath(template: string): string {
  return template.replace('{volumeId}', 'data-01').replace('{instanceId}', INSTANCE_A);
}

describe('OpenAPI document', () => {
  const document = buildOpenApiDocument();

  it('documents exactly the routes the router serves', () => {
    const routed = API_ROUTES.map(({ method, path }) => `${method} ${path}`).sort();
    expect(documentedOperations(document).sort()).toEqual(routed);
    expect(routed).toHaveLength(11);
  });

  it('every documented operation reaches a route, and other methods on its path get 405', async () => {
    const api = apiHarness();
    await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3' } } });
    for (const operation of documentedOperations(document)) {
      const [method, template] = operation.split(' ') as [string, string];
      const response = await api.call({ method, url: concretePath(template) });
      const type = (response.json as { type?: string } | undefined)?.type ?? '';
      expect(type, operation).not.toMatch(/no-such-route|method-not-allowed/);
    }
    const paths = Object.keys(document.paths ?? {});
    for (const template of paths) {
      const documented = Object.keys(document.paths![template] as object).map((m) => m.toUpperCase());
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].filter((m) => !documented.includes(m))) {
        const response = await api.call({ method, url: concretePath(template) });
        expect(response.statusCode, `${method} ${template}`).toBe(405);
        expect(response.headers?.Allow, `${method} ${template}`).toBe(
          ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => documented.includes(m)).join(', '),
        );
      }
    }
  });

  it('documents the 413 every operation gives for a body over the limit, one it takes or not', async () => {
    const api = apiHarness();
    const body = ' '.repeat(API.maxBodyBytes + 1);
    for (const operation of documentedOperations(document)) {
      const [method, template] = operation.split(' ') as [string, string];
      const response = await api.call({ method, url: concretePath(template), headers: { 'content-type': 'application/json' }, body });
      expect(response.statusCode, operation).toBe(413);
      const item = document.paths![template] as Record<string, { responses: Record<string, unknown> }>;
      expect(item[method.toLowerCase()]?.responses, operation).toHaveProperty('413');
    }
  });

  it('declares every path parameter its template names', () => {
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      for (const [method, operation] of Object.entries(item as Record<string, { parameters?: Array<{ in: string; name: string }> }>)) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name).sort();
        expect(declared, `${method} ${path}`).toEqual(names);
      }
    }
  });

  it('resolves every $ref to a component', () => {
    const text = JSON.stringify(document);
    const refs = [...text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const name of new Set(refs)) expect(document.components?.schemas, name).toHaveProperty(name);
  });

  it('describes the 405 a path gives for a method it does not list, with its Allow header', () => {
    const response = document.components?.responses?.MethodNotAllowed as
      | { headers: Record<string, { required?: boolean }>; content: Record<string, { schema: { $ref: string } }> }
      | undefined;
    expect(response?.headers.Allow?.required).toBe(true);
    expect(response?.content['application/problem+json']?.schema).toEqual({ $ref: '#/components/schemas/Problem' });
    expect(document.info.description).toContain('405 and an `Allow` header (`#/components/responses/MethodNotAllowed`)');
  });

  it('describes error responses as problem+json', () => {
    const create = (document.paths!['/volumes'] as { post: { responses: Record<string, { content?: object }> } }).post;
    for (const status of ['400', '409', '413', '415', '500']) {
      expect(create.responses[status]?.content, status).toHaveProperty(['application/problem+json']);
    }
    // Every error of every operation, its 412s and route-specific ones included: a problem, and only that.
    let errors = 0;
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const [method, operation] of Object.entries(item as Record<string, { responses: Record<string, { content?: object }> }>)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          if (Number(status) < 400) continue;
          errors++;
          expect(response.content, `${method} ${path} ${status}`).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
        }
      }
    }
    expect(errors).toBeGreaterThan(50);
  });

  it('documents If-Match, 412 and the ETag header on exactly the routes that take or give them', () => {
    type Operation = { parameters?: Array<{ name: string; in: string; required?: boolean }>; responses: Record<string, { headers?: Record<string, unknown> }> };
    const operation = (path: string, method: string) => (document.paths as Record<string, Record<string, Operation>>)[path]![method]!;
    const takesIfMatch = (op: Operation) => op.parameters?.some((p) => p.in === 'header' && p.name === 'If-Match' && p.required === false) ?? false;
    const writes = [
      ['/volumes/{volumeId}', 'patch'],
      ['/volumes/{volumeId}', 'delete'],
      ['/volumes/{volumeId}/retry', 'post'],
      ['/volumes/{volumeId}/attachments/{instanceId}', 'put'],
      ['/volumes/{volumeId}/attachments/{instanceId}', 'delete'],
      ['/volumes/{volumeId}/attachments/{instanceId}/retry', 'post'],
    ] as const;
    for (const [path, method] of writes) {
      const op = operation(path, method);
      expect(takesIfMatch(op), `${method} ${path}`).toBe(true);
      expect(op.responses['412'], `${method} ${path}`).toBeDefined();
      // A 412 about a record that exists names its current generation; one about a missing attachment cannot.
      expect(op.responses['412']!.headers?.ETag, `${method} ${path}`).toMatchObject({ required: false });
      const success = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      for (const [, response] of success) expect(response.headers, `${method} ${path}`).toHaveProperty('ETag');
    }
    expect(operation('/volumes/{volumeId}', 'get').responses['200']!.headers).toHaveProperty('ETag');
    expect(operation('/volumes', 'post').responses['201']!.headers).toHaveProperty('ETag');
    for (const [path, method] of [['/volumes', 'get'], ['/volumes/{volumeId}', 'get'], ['/volumes', 'post']] as const) {
      expect(takesIfMatch(operation(path, method))).toBe(false);
    }
    expect(operation('/volumes', 'get').responses['200']!.headers).toBeUndefined();
  });

  it('documents the Location header POST /volumes sends with the volume, created or found', async () => {
    type Operation = { responses: Record<string, { headers?: Record<string, { required?: boolean }> }> };
    const create = (document.paths as Record<string, Record<string, Operation>>)['/volumes']!.post!;
    const api = apiHarness();
    const request = { method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } } };
    for (const status of [201, 200]) {
      const response = await api.call(request);
      expect(response.statusCode).toBe(status);
      expect(response.headers?.Location).toBe('volumes/data-01');
      expect(create.responses[String(status)]?.headers?.Location, String(status)).toMatchObject({ required: true });
      expect(create.responses[String(status)]?.headers).toHaveProperty('ETag');
    }
  });

  it('admits the empty createdAt and status.updatedAt of a record written straight into the table without them', async () => {
    type Schema = { required?: string[]; properties?: Record<string, Schema>; anyOf?: Schema[]; enum?: unknown[]; format?: string; $ref?: string };
    const schemas = document.components?.schemas as Record<string, Schema>;
    const admitsEmpty = (schema: Schema | undefined) => schema?.format === undefined && (schema?.anyOf ?? []).some((choice) => choice.enum?.includes(''));
    for (const name of ['Volume', 'VolumeDetails', 'Attachment']) {
      expect(schemas[name]!.required, name).toContain('createdAt');
      expect(admitsEmpty(schemas[name]!.properties!.createdAt), name).toBe(true);
    }
    for (const name of ['VolumeStatus', 'AttachmentStatus']) expect(admitsEmpty(schemas[name]!.properties!.updatedAt), name).toBe(true);
    // As served.
    const api = apiHarness();
    api.store.putRaw({ kind: 'volume', volumeId: 'raw', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, life: 'alive', generation: 1 });
    const served = (await api.call({ method: 'GET', url: '/volumes/raw' })).json as { createdAt: string; status: { updatedAt: string } };
    expect(served.createdAt).toBe('');
    expect(served.status.updatedAt).toBe('');
  });

  it('states the tag rules: how many, how long, which characters, which keys are reserved', () => {
    type Schema = { description?: string; maxProperties?: number; minProperties?: number; additionalProperties?: { maxLength?: number }; properties?: Record<string, Schema> };
    const schemas = document.components?.schemas as Record<string, Schema>;
    for (const tags of [schemas.VolumeSpec!.properties!.tags!, schemas.PatchVolumeRequest!.properties!.tags!]) {
      expect(tags.maxProperties).toBe(48);
      expect(tags.additionalProperties?.maxLength).toBe(256);
      for (const rule of ['At most 48 tags', 'Keys of 1–127 characters', 'values of at most 256 (Unicode characters', 'letters, digits, spaces and `_ . : / = + - @`: the set AWS allows across its services (EC2 takes more)', '`aws:` or `ebs-provisioner:`']) {
        expect(tags.description).toContain(rule);
      }
    }
    expect(schemas.PatchVolumeRequest!.minProperties).toBe(1);
  });

  it('describes the SigV4 (IAM) authorization of a deployed API as its security scheme', () => {
    const scheme = document.components?.securitySchemes?.sigv4 as Record<string, unknown> | undefined;
    expect(scheme).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization', 'x-amazon-apigateway-authtype': 'awsSigv4' });
    expect(scheme?.description).toMatch(/Signature Version 4.*`execute-api`.*`apiAuthorization=none` check no signature/s);
    expect(document.security).toEqual([{ sigv4: [] }]);
  });

  it('names first the server it is served from, relative to its own location, so a client of a deployed stage is not sent to the local runtime', () => {
    expect(document.servers?.[0]?.url).toBe('.');
    // As a client resolves it against the document's address, on a deployed stage and locally.
    expect(new URL(document.servers![0]!.url, 'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/openapi.json').href).toBe(
      'https://abc123.execute-api.eu-west-1.amazonaws.com/prod/',
    );
    expect(new URL(document.servers![0]!.url, 'http://127.0.0.1:3000/openapi.json').href).toBe('http://127.0.0.1:3000/');
    expect(document.servers?.map((server) => server.url)).toContain('http://127.0.0.1:3000');
  });

  it('is committed up to date in docs/openapi.json (regenerate with `npm run openapi`)', () => {
    expect(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')).toBe(renderOpenApiDocument());
  });

  it('is what GET /openapi.json serves', async () => {
    const response = await apiHarness().call({ method: 'GET', url: '/openapi.json' });
    expect(response.json).toEqual(JSON.parse(readFileSync(OPENAPI_DOCUMENT_PATH, 'utf8')));
  });
});

describe('the id rules in docs/api.md', () => {
  const document = buildOpenApiDocument();
  const rules = renderIdRules(document);

  it('are the ones the OpenAPI document gives, up to date (regenerate with `npm run openapi`)', () => {
    const guide = readFileSync(API_GUIDE_PATH, 'utf8');
    expect(guide).toContain(rules);
    expect(withIdRules(guide)).toBe(guide);
  });

  it('give each id its pattern as the API checks it, and its rule in words', () => {
    const lines = rules.split('\n').slice(1, -1);
    expect(lines.map((line) => /^- `([^`]+)`/.exec(line)?.[1])).toEqual(['volumeId', 'instanceId', 'device', 'snapshotId', 'kmsKeyId']);
    const patternOf = (name: string) => new RegExp(/Pattern: `(.+)`\.$/.exec(lines.find((line) => line.startsWith(`- \`${name}\``))!)![1]!);
    expect(patternOf('volumeId').test('data-01')).toBe(true);
    expect(patternOf('volumeId').test(generateVolumeId())).toBe(true);
    expect(patternOf('volumeId').test('-data')).toBe(false);
    expect(patternOf('volumeId').test('a'.repeat(129))).toBe(false);
    expect(patternOf('instanceId').test(INSTANCE_A)).toBe(true);
    expect(patternOf('instanceId').test('i-0123456789ABCDEF0')).toBe(false);
    expect(patternOf('device').test('/dev/xvdba')).toBe(true);
    expect(patternOf('device').test('/dev/sda')).toBe(false);
    expect(patternOf('device').test('/dev/xvddx')).toBe(true);
    expect(patternOf('device').test('/dev/xvddy')).toBe(false);
    expect(rules).toContain('1–128 letters, digits, ".", "_" or "-", starting with a letter or digit');
    expect(rules).toContain('`v-` and 16 hexadecimal digits');
    expect(generateVolumeId()).toMatch(/^v-[0-9a-f]{16}$/);
  });

  it('are refused as the rules say: an id in the path that breaks its rule is a 400 naming it', async () => {
    const api = apiHarness();
    const response = await api.call({ method: 'GET', url: `/volumes/${'a'.repeat(129)}` });
    expect(response.statusCode).toBe(400);
    expect(response.json).toMatchObject({ errors: [{ path: 'volumeId', message: expect.stringContaining('1–128 letters') }] });
  });

  it('replace only what lies between their markers, and need both', () => {
    expect(withIdRules(`a\n${ID_RULES_BEGIN}\nold\n${ID_RULES_END}\nb`, 'new')).toBe('a\nnew\nb');
    expect(() => withIdRules('no markers', 'new')).toThrow(/no id rules to replace/);
  });
});
