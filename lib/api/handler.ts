/**
 * The HTTP API as a middy handler for API Gateway REST proxy events. The same handler runs in
 * Lambda (functions/api.ts) and behind the local runtime's HTTP server (lib/api/node-server.ts).
 *
 * Every request part is validated before the service runs, so bad input writes nothing. Errors
 * leave as RFC 9457 problem details with field-level messages.
 */
import middy, { type MiddlewareObj } from '@middy/core';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import jsonBodyParser from '@middy/http-json-body-parser';
import httpRouterHandler from '@middy/http-router';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { z } from 'zod';
import { shortenMiddle } from '../domain/status-message.js';
import { describeValidationIssues, fieldPath, MAX_UNKNOWN_FIELDS_LISTED, unknownFieldIssues } from '../domain/validation.js';
import type { RateBucket, RateBudget } from '../engine/config.js';
import type { Clock, Log, RecordStore, SharedRateBudget } from '../engine/ports.js';
import { silentLog } from '../memory/log.js';
import { API } from '../settings.js';
import { buildOpenApiDocument } from './openapi.js';
import { parseOrThrow } from './parse.js';
import { parseIfMatch } from './preconditions.js';
import { ApiProblem, invalid, type FieldIssue } from './problem.js';
import { HTTP_METHODS, ROUTES, pathParameterNames, pathPattern, type ApiRoute, type RouteContext } from './routes.js';
import { VolumeService } from './service.js';

export interface ApiHandlerDeps {
  store: RecordStore;
  clock: Clock;
  log?: Log;
  /** Id for volumes created without one (tests make it deterministic). */
  newVolumeId?: () => string;
  /** The executors' shared EC2 rate budget, read to show how long a call waits in line (`rateWait`). */
  rateBudget?: SharedRateBudget;
  /** EC2's buckets as the executors spend them (default: the engine's defaults). */
  accountRateBudgets?: Record<RateBucket, RateBudget>;
  /** Middlewares run before all others, e.g. the Lambda entry point's logging context. */
  middlewares?: MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>[];
}

export type ApiHandler = middy.MiddyfiedHandler<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>;

/** Every method and path the handler routes, as given to the router. */
export const API_ROUTES: ReadonlyArray<{ method: string; path: string }> = ROUTES.map(({ method, path }) => ({ method, path }));

export function createApiHandler(deps: ApiHandlerDeps): ApiHandler {
  const log = deps.log ?? silentLog;
  const service = new VolumeService({ ...deps, log });
  let document: unknown;
  const context: RouteContext = {
    service,
    openApiDocument: () => (document ??= buildOpenApiDocument()),
  };

  const routes = ROUTES.map((route) => ({
    method: route.method,
    path: route.path,
    handler: routeHandler(route, context) as RouteRun,
  }));
  const byPath = httpRouterHandler({ routes, notFoundResponse: noSuchRoute }) as RouteRun;
  const byResource = new Map(routes.map((route) => [`${route.method} ${route.path}`, route.handler]));

  return middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(deps.middlewares ?? [])
    .use(httpHeaderNormalizer())
    .use(problemResponses(log))
    .use(bodySizeLimit(API.maxBodyBytes))
    .handler((event, context, options) => {
      const routed = byResource.get(`${event.httpMethod} ${routedResource(event)}`);
      return (routed ?? byPath)(event, context, options);
    });
}

/** A route's handler or the router, as the handler calls them (with middy's options: its abort signal). */
type RouteRun = (event: APIGatewayProxyEvent, context: Context, options: unknown) => Promise<APIGatewayProxyResult>;

/**
 * The route template API Gateway matched the request to (`/volumes/{volumeId}`), with the ids in
 * `pathParameters`. Deployed, this is what to route on: `path` is the path as the client sent it,
 * which under a custom domain carries its base path mapping (`/ebs/volumes/data-01`) and would
 * match no route, or another (a base path `volumes` makes `GET /volumes/volumes` look like the
 * volume `volumes`). The local server's events name the catch-all `/{proxy+}`, which is no route:
 * they are routed on their path, which is the API's own.
 */
function routedResource(event: APIGatewayProxyEvent): string | undefined {
  return event.resource ?? event.requestContext?.resourcePath;
}

const NO_QUERY = z.strictObject({});

/**
 * One route: parses path, query and body with the route's schemas, runs it, answers JSON. The
 * body is read last: when it is refused and the request has `If-Match`, the precondition is
 * evaluated first (RFC 9110 §13.2.1: after the request's other checks, before its content is
 * processed), so a stale or unmatchable `If-Match` is a 412 whatever the body holds. The record is
 * read for that only when the body is refused: the route itself evaluates the header before it acts.
 */
function routeHandler(route: ApiRoute, context: RouteContext) {
  const names = pathParameterNames(route.path);
  return async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => {
    const params = route.params ? parseOrThrow(route.params, pickPathParameters(event, names), 'path') : undefined;
    // Routes without query parameters reject any, like unknown body fields.
    const query = parseOrThrow(route.query ?? NO_QUERY, singleQueryValues(event), 'query');
    const ifMatchHeader = route.ifMatch ? ifMatchOf(event) : undefined;
    const ifMatch = ifMatchHeader === undefined ? undefined : parseIfMatch(ifMatchHeader);
    let body: unknown;
    try {
      body = await requestContent(event, route);
    } catch (error) {
      if (ifMatch !== undefined && route.precondition) await route.precondition(context, { params, ifMatch });
      throw error;
    }
    const result = await route.run(context, { params, query, body, ifMatch, path: event.path });
    return {
      statusCode: result.status,
      headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...result.headers },
      body: JSON.stringify(result.body),
    };
  };
}

/** The route's body, parsed and validated; routes without a body reject one, like unknown fields in a body. */
async function requestContent(event: APIGatewayProxyEvent, route: ApiRoute): Promise<unknown> {
  if (!route.body) {
    refuseBody(event);
    return undefined;
  }
  await parseJsonBody(event, { optional: route.bodyRequired === false });
  return parseOrThrow(route.body, requestBody(event), 'body');
}

/**
 * Throws 400 when a route that takes no body is sent one. No body, an empty or blank one, and an
 * object without fields (`{}`, which some clients send on every POST) ask for nothing and pass;
 * an object's fields are each named as unknown, anything else is refused as a whole.
 */
function refuseBody(event: APIGatewayProxyEvent): void {
  if (typeof event.body !== 'string') return;
  const text = bodyText(event.body, event.isBase64Encoded).trim();
  if (text === '') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  const fields = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.keys(parsed) : undefined;
  if (fields?.length === 0) return;
  const issues: FieldIssue[] = fields
    ? unknownFieldIssues([], fields, 'is not a known field: this route takes no body')
    : [{ path: '', message: 'this route takes no body' }];
  throw invalid(`the request body is not valid: ${describeValidationIssues(issues)}`, issues);
}

/** A body as text, decoded when API Gateway passed it base64-encoded. */
function bodyText(body: string, isBase64Encoded: boolean): string {
  return isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/**
 * Every `If-Match` field as one list (RFC 9110 §5.3): API Gateway keeps only the last of repeated
 * fields in `headers`, all of them in `multiValueHeaders` (both lowercased by the header normalizer).
 */
function ifMatchOf(event: APIGatewayProxyEvent): string | undefined {
  const fields = event.multiValueHeaders?.['if-match'];
  return fields && fields.length > 0 ? fields.join(', ') : event.headers?.['if-match'];
}

/** The 400 of a route that needs a body sent none (or a blank one). */
function missingBody(): ApiProblem {
  return new ApiProblem('validation-failed', 'the request body is required', [{ path: '', message: 'a JSON body is required' }]);
}

/** The parsed body; a missing one is optional (`parseJsonBody` refuses a required one) and reads as `{}`. */
function requestBody(event: APIGatewayProxyEvent): unknown {
  const body = event.body as unknown;
  if (body === undefined || body === null) return {};
  const issues = protoKeyIssues(body);
  if (issues.length > 0) throw invalid(`the request body is not valid: ${describeValidationIssues(issues)}`, issues);
  return body;
}

/** A value met in a body, with the key it is under and the place of its parent: its path, spelt out only when needed. */
interface Place {
  value: unknown;
  /** A key of an object, or the index of an array's item. */
  key?: string | number;
  parent?: Place;
}

function pathOf(place: Place): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Place | undefined = place; at?.key !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

/** `__proto__` keys of a body named one by one, the rest counted, as unknown fields are (MAX_UNKNOWN_FIELDS_LISTED). */
const MAX_PROTO_KEYS_LISTED = MAX_UNKNOWN_FIELDS_LISTED;
/** The longest path a `__proto__` issue names whole; a longer one keeps its start and its end (`shortenMiddle`). */
const MAX_PROTO_KEY_PATH_CHARS = 200;

/**
 * Every `__proto__` key in a parsed JSON body, wherever it is. JSON.parse keeps it as a key like
 * any other, but a map of the schemas (tags) skips it without a word, so a tag by that name would
 * vanish and a PATCH sending only it would remove every tag; it is refused instead, by name. Walked
 * without recursion, and each value holds only its key and its parent, its path spelt out when
 * found: a body within the size limit may nest some hundred thousand levels deep, whose paths,
 * copied level by level, would take billions of steps. For the same reason only the first ones are
 * named, each path within MAX_PROTO_KEY_PATH_CHARS, and the others counted: a body nesting a
 * `__proto__` in each of its levels would otherwise be answered with every level's whole path,
 * gigabytes for a body of 256 KiB.
 */
function protoKeyIssues(body: unknown): FieldIssue[] {
  const issues: FieldIssue[] = [];
  let more = 0;
  const pending: Place[] = [{ value: body }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value } = next;
    if (value === null || typeof value !== 'object') continue;
    const keys = Object.keys(value);
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i]!;
      pending.push({ value: (value as Record<string, unknown>)[key], key: Array.isArray(value) ? i : key, parent: next });
    }
    if (!keys.includes('__proto__')) continue;
    if (issues.length === MAX_PROTO_KEYS_LISTED) more++;
    else issues.push({ path: shortenMiddle(fieldPath([...pathOf(next), '__proto__']), MAX_PROTO_KEY_PATH_CHARS), message: '"__proto__" cannot be a key' });
  }
  if (more > 0) issues.push({ path: '', message: `and ${more} more "__proto__" ${more === 1 ? 'key' : 'keys'}` });
  return issues;
}

/** middy's JSON body parser, its media type check left to `parseJsonBody`. */
const JSON_PARSER = jsonBodyParser<APIGatewayProxyEvent>({
  // A documented option (middy.js.org) that the package's type declarations leave out.
  disableContentTypeCheck: true,
} as Parameters<typeof jsonBodyParser>[0] & { disableContentTypeCheck: boolean });

/**
 * Parses a JSON body in place with middy's parser once its media type is checked here: middy
 * matches it case-sensitively, and media types are case-insensitive (RFC 9110 §8.3.1). An optional
 * body may be absent or blank (it reads as null); a required one absent or blank is a 400 saying so.
 * A body sent as JSON `null` is refused as such: parsed, it would read as no body at all, taken on
 * `PUT` as the attach it asks for and told on the others that a body is required.
 */
async function parseJsonBody(event: APIGatewayProxyEvent, { optional }: { optional: boolean }): Promise<void> {
  const { body, headers } = event;
  // Blank is no body, as on the routes that take none (`refuseBody`); a required one missing is said so,
  // whatever its Content-Type, rather than told to be sent as JSON.
  if (body === null || body === undefined || bodyText(body, event.isBase64Encoded).trim() === '') {
    event.body = null;
    if (optional) return;
    throw missingBody();
  }
  const contentType = headers?.['content-type'];
  if (contentType === undefined || !isJsonMediaType(contentType)) {
    throw new ApiProblem('unsupported-media-type', `send the body as application/json (Content-Type was ${contentType ?? 'none'})`, [
      { path: 'Content-Type', message: 'must be application/json' },
    ]);
  }
  // The parser reads the event only.
  await JSON_PARSER.before?.({ event } as middy.Request<APIGatewayProxyEvent>);
  if (body !== null && body !== undefined && event.body === null) {
    const issues = [{ path: '', message: 'must be a JSON object, not null' }];
    throw invalid(`the request body is not valid: ${describeValidationIssues(issues)}`, issues);
  }
}

/** `application/json` or a `+json` type, in any case, with or without parameters (`; charset=utf-8`). */
function isJsonMediaType(contentType: string): boolean {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return /^application\/([^/\s]+\+)?json$/.test(mediaType);
}

/**
 * The route's ids from `pathParameters`: API Gateway's (REST APIs pass them percent-encoded, as
 * sent) or, routed on the path, the router's. Either way each is percent-decoded once here.
 */
function pickPathParameters(event: APIGatewayProxyEvent, names: string[]): Record<string, string | undefined> {
  const values: Record<string, string | undefined> = {};
  for (const name of names) {
    const raw = event.pathParameters?.[name];
    values[name] = raw === undefined ? undefined : safeDecode(raw);
  }
  return values;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Query parameters as single values; a repeated parameter is an error, not a silent pick. */
function singleQueryValues(event: APIGatewayProxyEvent): Record<string, string> {
  const repeated = Object.entries(event.multiValueQueryStringParameters ?? {})
    .filter(([, values]) => (values?.length ?? 0) > 1)
    .map(([name]) => ({ path: fieldPath([name]), message: 'is given more than once' }));
  if (repeated.length > 0) {
    throw new ApiProblem('validation-failed', 'the query string is not valid: a parameter is repeated', repeated);
  }
  // Built with fromEntries, so a parameter named `__proto__` stays a key (and is refused as unknown).
  return Object.fromEntries(
    Object.entries(event.queryStringParameters ?? {}).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** Rejects bodies over the limit before anything parses them. */
function bodySizeLimit(maxBytes: number): MiddlewareObj<APIGatewayProxyEvent> {
  return {
    before: async ({ event }) => {
      if (typeof event.body !== 'string') return;
      const bytes = Buffer.byteLength(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
      if (bytes > maxBytes) {
        throw new ApiProblem('body-too-large', `the request body is ${bytes} bytes; the limit is ${maxBytes} bytes`);
      }
    },
  };
}

/** The router's fallback: 405 with `Allow` when the path exists under other methods, else 404. */
function noSuchRoute({ method, path }: { method: string; path: string }): never {
  const allowed = HTTP_METHODS.filter((candidate) =>
    ROUTES.some((route) => route.method === candidate && pathPattern(route.path).test(path)),
  );
  if (allowed.length > 0) {
    throw new ApiProblem('method-not-allowed', `${method} is not allowed on ${path}; use ${allowed.join(', ')}`, [], {
      Allow: allowed.join(', '),
    });
  }
  throw new ApiProblem('no-such-route', `there is no route ${path}; see GET /openapi.json`);
}

interface MiddyHttpError {
  statusCode: number;
  message: string;
  cause?: { package?: string; message?: string };
}

function isMiddyHttpError(error: unknown): error is MiddyHttpError {
  return error instanceof Error && typeof (error as Partial<MiddyHttpError>).statusCode === 'number';
}

/** Turns what middy's body parser throws (its media type check is ours: `parseJsonBody`) into our problems. */
function fromBodyParser(error: MiddyHttpError): ApiProblem | undefined {
  if (error.cause?.package !== '@middy/http-json-body-parser') return undefined;
  const reason = error.cause.message ?? error.message;
  return new ApiProblem('malformed-json', `the request body is not valid JSON: ${reason}`, [{ path: '', message: reason }]);
}

/** Formats every error as application/problem+json; logs server faults with their cause. */
function problemResponses(log: Log): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: async (request) => {
      const error = request.error;
      let problem: ApiProblem;
      if (error instanceof ApiProblem) {
        problem = error;
      } else if (isMiddyHttpError(error) && error.statusCode < 500) {
        problem = fromBodyParser(error) ?? new ApiProblem('validation-failed', error.message);
      } else {
        log.error('request failed', {
          error: error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
          method: request.event.httpMethod,
          path: request.event.path,
        });
        problem = new ApiProblem('internal', 'the request failed unexpectedly; it is safe to retry');
      }
      if (problem.status < 500) {
        log.info('request rejected', { status: problem.status, detail: problem.detail, method: request.event.httpMethod, path: request.event.path });
      }
      request.response = problem.toResponse();
    },
  };
}
