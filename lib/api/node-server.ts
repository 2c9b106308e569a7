/**
 * Serves the API handler over plain HTTP on this machine, translating each request into the API
 * Gateway REST proxy event Lambda would receive, so local runs and tests exercise the exact
 * handler that is deployed.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { API } from '../settings.js';
import { ApiProblem } from './problem.js';

/** API Gateway's own payload limit; larger requests never reach a Lambda function. */
export const GATEWAY_MAX_PAYLOAD_BYTES = 10 * 1024 * 1024;

/** How long closing the server lets requests under way finish before their connections are cut. */
export const CLOSE_GRACE_MS = 5_000;

export interface ProxyRequest {
  method: string;
  /** Path with optional query string, e.g. `/volumes?state=available`. */
  url: string;
  headers?: Record<string, string | string[] | undefined>;
  body?: string | null;
}

/**
 * The path of `requestUrl` as sent. `new URL` resolves `.` and `..` segments and reads `//x` as a
 * host, so `DELETE /volumes/v/attachments/..` would reach the router as the delete of volume `v`;
 * as sent, such a path names no record and is refused.
 */
function pathAsSent(requestUrl: string, url: URL): string {
  const end = requestUrl.search(/[?#]/);
  const path = end < 0 ? requestUrl : requestUrl.slice(0, end);
  return path.startsWith('/') ? path : url.pathname;
}

/**
 * The REST proxy event API Gateway would build for this request. Its maps are built from `Map`s, so
 * a name such as `constructor` or `__proto__` is a key of its own, as in the event Lambda parses.
 */
export function toProxyEvent(request: ProxyRequest): APIGatewayProxyEvent {
  const url = new URL(request.url, 'http://localhost');
  const path = pathAsSent(request.url, url);
  const multiQueryValues = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) {
    const values = multiQueryValues.get(name) ?? [];
    multiQueryValues.set(name, [...values, value]);
  }
  const query: Record<string, string> = Object.fromEntries([...multiQueryValues].map(([name, values]) => [name, values[values.length - 1]!]));
  const multiQuery: Record<string, string[]> = Object.fromEntries(multiQueryValues);
  const headerValues = new Map<string, string[]>();
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    if (value === undefined) continue;
    headerValues.set(name, Array.isArray(value) ? value : [value]);
  }
  const headers: Record<string, string> = Object.fromEntries([...headerValues].map(([name, values]) => [name, values.join(',')]));
  const multiHeaders: Record<string, string[]> = Object.fromEntries(headerValues);
  const hasQuery = multiQueryValues.size > 0;
  const requestId = randomUUID();
  const now = Date.now();
  return {
    httpMethod: request.method.toUpperCase(),
    path,
    resource: '/{proxy+}',
    headers,
    multiValueHeaders: multiHeaders,
    queryStringParameters: hasQuery ? query : null,
    multiValueQueryStringParameters: hasQuery ? multiQuery : null,
    pathParameters: null,
    stageVariables: null,
    body: request.body === undefined || request.body === '' ? null : request.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      authorizer: null,
      protocol: 'HTTP/1.1',
      httpMethod: request.method.toUpperCase(),
      identity: {
        accessKey: null,
        accountId: null,
        apiKey: null,
        apiKeyId: null,
        caller: null,
        clientCert: null,
        cognitoAuthenticationProvider: null,
        cognitoAuthenticationType: null,
        cognitoIdentityId: null,
        cognitoIdentityPoolId: null,
        principalOrgId: null,
        sourceIp: '127.0.0.1',
        user: null,
        userAgent: headers['user-agent'] ?? null,
        userArn: null,
      },
      path,
      stage: 'local',
      requestId,
      requestTimeEpoch: now,
      resourceId: 'local',
      resourcePath: '/{proxy+}',
    },
  };
}

/** A Lambda context for a local invocation, with the API function's timeout. */
export function localLambdaContext(requestId: string): Context {
  const deadline = Date.now() + API.timeoutSeconds * 1000;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: 'ebs-provisioner-api',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:ebs-provisioner-api',
    memoryLimitInMB: String(API.memoryMiB),
    awsRequestId: requestId,
    logGroupName: '/aws/lambda/ebs-provisioner-api',
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

export type ProxyHandler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

export interface RunningApiServer {
  /** Base URL, e.g. `http://127.0.0.1:43123`. */
  url: string;
  port: number;
  server: Server;
  close(): Promise<void>;
}

/** Starts an HTTP server on `host:port` (port 0: any free port) that feeds `handler`. */
export async function startApiServer(
  handler: ProxyHandler,
  options: { host?: string; port?: number } = {},
): Promise<RunningApiServer> {
  const host = options.host ?? '127.0.0.1';
  let closing = false;
  const server = createServer((req, res) => {
    void (async () => {
      let result: APIGatewayProxyResult;
      try {
        const body = await readBody(req);
        const event = toProxyEvent({ method: req.method ?? 'GET', url: req.url ?? '/', headers: req.headers, body });
        result = await handler(event, localLambdaContext(event.requestContext.requestId));
      } catch (error) {
        const problem =
          error instanceof ApiProblem ? error : new ApiProblem('internal', 'the local server failed to run the request');
        result = problem.toResponse();
      }
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
      const payload = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
      headers['Content-Length'] = String(payload.length);
      // Closing: the answer ends its connection, so the server need not wait out its keep-alive.
      if (closing) headers.Connection = 'close';
      res.writeHead(result.statusCode, headers);
      res.end(payload);
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    server,
    // Requests under way finish (their writes may already be stored) within a grace; idle connections go at once.
    close: () =>
      new Promise<void>((resolve, reject) => {
        closing = true;
        const force = setTimeout(() => server.closeAllConnections(), CLOSE_GRACE_MS);
        force.unref();
        server.close((error) => {
          clearTimeout(force);
          if (error) reject(error);
          else resolve();
        });
        server.closeIdleConnections();
      }),
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > GATEWAY_MAX_PAYLOAD_BYTES) {
      throw new ApiProblem('body-too-large', `the request body exceeds ${GATEWAY_MAX_PAYLOAD_BYTES} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
