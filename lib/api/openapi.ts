/**
 * The OpenAPI 3 document of the HTTP API, generated from the route table and its zod schemas.
 * The same document is served at `GET /openapi.json` and committed as docs/openapi.json.
 */
import { OpenAPIRegistry, OpenApiGeneratorV3, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { API } from '../settings.js';
import { PROBLEM_CONTENT_TYPE, PROBLEM_KINDS } from './problem.js';
import { ROUTES, type ApiRoute } from './routes.js';
import { ProblemSchema } from './schemas.js';

/** Version of the API contract (not of the package). */
export const API_VERSION = '1.0.0';

/** Problems every route can give, and those of a route with input. */
function commonProblems(route: ApiRoute): Record<number, string> {
  const problems: Record<number, string> = {};
  const noBody = route.body === undefined ? ' This route takes no body: any but an empty one or `{}` is refused.' : '';
  problems[400] = route.params !== undefined || route.query !== undefined || route.body !== undefined
    ? `Invalid input; \`errors\` names each field and what is wrong with it.${noBody}`
    : `A query parameter or a body: this route takes neither (an empty body or \`{}\` is none).`;
  // The size limit is checked before routing, so it applies to a body on any route.
  problems[413] = `The body is larger than ${API.maxBodyBytes} bytes.`;
  if (route.body !== undefined) problems[415] = 'The body is not sent as application/json.';
  problems[500] = 'Unexpected failure; safe to retry.';
  return problems;
}

/** The `If-Match` request header of the routes that take it. */
const IF_MATCH_HEADERS = z.object({
  'If-Match': z
    .string()
    .optional()
    .meta({
      description:
        'Make the change only if the record is still as read: an `ETag` from an earlier response (e.g. `"7.mjv2lsw0"`), ' +
        'a comma-separated list of them, or `*` (the record exists). Otherwise 412 and nothing changes. Optional.',
      example: '"7.mjv2lsw0"',
    }),
});

/** The `ETag` response header of a response naming one record. */
const ETAG_HEADER = {
  ETag: {
    description:
      "Strong entity tag of the record's `generation` (its client-owned part) and creation time, e.g. `\"7.mjv2lsw0\"` (opaque): give it " +
      "as `If-Match` to change the record only if no other client changed it, or deleted it and created another, meanwhile. The system's own " +
      'status changes leave it as it is.',
    required: true,
    schema: { type: 'string' as const, example: '"7.mjv2lsw0"' },
  },
};

/** The `Location` response header of a response naming the volume a request created (or found). */
const LOCATION_HEADER = {
  Location: {
    description: 'The volume\'s URL as a reference relative to the request\'s, e.g. `volumes/data-01` (`data-01` for a request to `…/volumes/`): resolved against the request\'s URL, it keeps the stage or base path the API is served under.',
    required: true,
    schema: { type: 'string' as const, example: 'volumes/data-01' },
  },
};

/** The `ETag` header of a 412: the record's current tag, absent when the record does not exist. */
const PRECONDITION_ETAG_HEADER = {
  ETag: {
    description: 'Strong entity tag of the record as it is now, when it exists: read it again and reapply the change (or, when `detail` says the header can never match, fix the header).',
    required: false,
    schema: { type: 'string' as const, example: '"7.mjv2lsw0"' },
  },
};

function problemResponse(description: string, headers?: ResponseConfig['headers']): ResponseConfig {
  return { description, ...(headers ? { headers } : {}), content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } };
}

/**
 * The answer to a method a path does not list. OpenAPI describes responses per operation, and
 * this one belongs to the methods a path has no operation for, so it is a component of its own.
 */
const METHOD_NOT_ALLOWED = {
  name: 'MethodNotAllowed',
  description:
    'The path exists, but not with this method (HEAD and OPTIONS included: the API serves no CORS); `Allow` lists its methods.',
} as const;

/**
 * How a deployed API authorizes callers: API Gateway's IAM authorization, i.e. requests signed with
 * AWS Signature Version 4. OpenAPI 3.0 has no scheme type for it; `apiKey` in the `Authorization`
 * header with `x-amazon-apigateway-authtype: awsSigv4` is how API Gateway itself describes it.
 */
const SIGV4 = {
  name: 'sigv4',
  scheme: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'Authorization',
    description:
      'AWS Signature Version 4 (IAM authorization): a deployed API takes only requests signed for the `execute-api` service in its ' +
      'region, with the credentials of an AWS principal that IAM allows `execute-api:Invoke` on it; others are refused by API Gateway ' +
      'with 403 before they reach the function. Temporary credentials add `X-Amz-Security-Token`. The local runtime (`npm start`) ' +
      'and a stack deployed with `apiAuthorization=none` check no signature.',
    'x-amazon-apigateway-authtype': 'awsSigv4',
  },
};

/** Builds the document for `routes` (the API's own table by default). */
export function buildOpenApiDocument(routes: readonly ApiRoute[] = ROUTES) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SIGV4.name, SIGV4.scheme);
  registry.registerComponent('responses', METHOD_NOT_ALLOWED.name, {
    description: METHOD_NOT_ALLOWED.description,
    headers: {
      Allow: { description: "The path's methods (RFC 9110).", required: true, schema: { type: 'string', example: 'GET, PATCH, DELETE' } },
    },
    content: { [PROBLEM_CONTENT_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
  });
  for (const route of routes) {
    const responses: Record<string, ResponseConfig> = {};
    for (const [status, spec] of Object.entries(route.responses)) {
      responses[status] = {
        description: spec.description,
        ...(spec.etag || spec.location ? { headers: { ...(spec.etag ? ETAG_HEADER : {}), ...(spec.location ? LOCATION_HEADER : {}) } } : {}),
        content: { 'application/json': { schema: spec.schema ?? { type: 'object' } } },
      };
    }
    for (const [status, description] of Object.entries({ ...commonProblems(route), ...route.problems })) {
      responses[status] = problemResponse(description, route.ifMatch && status === '412' ? PRECONDITION_ETAG_HEADER : undefined);
    }
    registry.registerPath({
      method: route.method.toLowerCase() as Lowercase<ApiRoute['method']>,
      path: route.path,
      operationId: route.operationId,
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      request: {
        ...(route.params ? { params: route.params } : {}),
        ...(route.query ? { query: route.query } : {}),
        ...(route.ifMatch ? { headers: IF_MATCH_HEADERS } : {}),
        ...(route.body
          ? {
              body: {
                required: route.bodyRequired ?? true,
                content: { 'application/json': { schema: route.body } },
              },
            }
          : {}),
      },
      responses,
    });
  }

  return new OpenApiGeneratorV3(registry.definitions).generateDocument({
    openapi: '3.0.3',
    info: {
      title: 'EBS volume provisioner API',
      version: API_VERSION,
      description:
        'Ask for EBS volumes and attachments; the system creates, attaches, grows, detaches and deletes them and ' +
        'keeps each record\'s `status` true. Errors are RFC 9457 problem details (' +
        Object.keys(PROBLEM_KINDS).map((kind) => `\`urn:ebs-provisioner:problem:${kind}\``).join(', ') +
        '). A path answers a method it does not list with 405 and an `Allow` header (`#/components/responses/' +
        `${METHOD_NOT_ALLOWED.name}\`); deployed, API Gateway answers a path or method it does not route itself, with 403 ` +
        '`missing-authentication-token`, and its own refusals (signature, throttling) are problems too. A deployed API requires ' +
        'SigV4-signed requests (IAM authorization).',
    },
    // Relative first: served by a deployed stage, the document names that stage (its own location), not the local runtime.
    servers: [
      { url: '.', description: 'Where this document is served from (`GET /openapi.json`): the deployed stage, or the local runtime.' },
      { url: 'http://127.0.0.1:3000', description: 'The local runtime (`npm start`).' },
    ],
    security: [{ [SIGV4.name]: [] }],
  });
}

/** The document as committed in docs/openapi.json: stable two-space JSON with a final newline. */
export function renderOpenApiDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

/** The ids a request names, where it names them, and where the document holds each one's rule: a component, or a property of one. */
const ID_RULE_PLACES: ReadonlyArray<{ name: string; where: string; schema: readonly [string, ...string[]] }> = [
  { name: 'volumeId', where: 'the path, and `volumeId` of `POST /volumes`', schema: ['VolumeId'] },
  {
    name: 'instanceId',
    where: 'the path, `attachTo.instanceId`, `spec.placementInstanceId` and the `instanceId` filter of `GET /volumes`',
    schema: ['InstanceId'],
  },
  { name: 'device', where: '`device` of `PUT …/attachments/{instanceId}`, and `attachTo.device`', schema: ['DeviceName'] },
  { name: 'snapshotId', where: '`spec.snapshotId`, and `snapshotId` of `PATCH`', schema: ['VolumeSpec', 'snapshotId'] },
  { name: 'kmsKeyId', where: '`spec.kmsKeyId`, and `kmsKeyId` of `PATCH`', schema: ['VolumeSpec', 'kmsKeyId'] },
];

/** The first and last lines of the id rules in docs/api.md, which `npm run openapi` writes between them. */
export const ID_RULES_BEGIN = '<!-- Id rules: generated from the OpenAPI document by `npm run openapi`; do not edit by hand. -->';
export const ID_RULES_END = '<!-- End of the id rules. -->';

/**
 * The rules of the ids a request names, as Markdown: each one's description and pattern as the
 * OpenAPI document gives them (the zod schemas the API validates with), so docs/api.md cannot say
 * other than the check does.
 */
export function renderIdRules(document = buildOpenApiDocument()): string {
  const schemas = (document.components?.schemas ?? {}) as Record<string, { description?: string; pattern?: string; properties?: Record<string, unknown> }>;
  const lines = ID_RULE_PLACES.map(({ name, where, schema: [component, property] }) => {
    const owner = schemas[component];
    const rule = (property === undefined ? owner : owner?.properties?.[property]) as { description?: string; pattern?: string } | undefined;
    if (rule?.description === undefined || rule.pattern === undefined) {
      throw new Error(`the OpenAPI document gives no description and pattern for ${[component, property].filter(Boolean).join('.')}`);
    }
    return `- \`${name}\` (${where}): ${rule.description} Pattern: \`${rule.pattern}\`.`;
  });
  return [ID_RULES_BEGIN, ...lines, ID_RULES_END].join('\n');
}

/** `markdown` with its id rules (between ID_RULES_BEGIN and ID_RULES_END) as `renderIdRules` writes them. */
export function withIdRules(markdown: string, rules = renderIdRules()): string {
  const begin = markdown.indexOf(ID_RULES_BEGIN);
  const end = markdown.indexOf(ID_RULES_END);
  if (begin < 0 || end < begin) throw new Error(`no id rules to replace: the text has no "${ID_RULES_BEGIN}" followed by "${ID_RULES_END}"`);
  return markdown.slice(0, begin) + rules + markdown.slice(end + ID_RULES_END.length);
}
