/**
 * A small typed client for the HTTP API, used by the CLI. Requests are signed when a signer is
 * given (deployed API); problem responses become `ApiError`s that carry the problem body.
 */
import type { ProblemBody } from '../lib/api/problem.js';
import type {
  AttachmentList,
  AttachmentView,
  CreateVolumeRequest,
  PatchVolumeRequest,
  PutAttachmentRequest,
  VolumeDetails,
  VolumeList,
} from '../lib/api/schemas.js';
import type { RequestSigner } from './sigv4.js';

/** Host names of this machine, as a URL spells them: `localhost`, 127.0.0.0/8, `[::1]`. */
export const LOOPBACK_HOST = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** The API answered with an error status. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    /** The problem body, when the API sent one. */
    readonly problem: ProblemBody | undefined,
    message: string,
    /** The JSON the API answered with (the problem document, or e.g. a `{ message }` API Gateway gives for a type without a problem). */
    readonly body: unknown = undefined,
  ) {
    super(message);
  }
}

/** The API could not be reached at all, or (`timedOut`) did not answer in time. */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(
    message: string,
    readonly timedOut = false,
  ) {
    super(message);
  }
}

export interface ApiClientOptions {
  /** Base URL, possibly with a stage path, e.g. `https://abc.execute-api.eu-west-1.amazonaws.com/v1`. */
  endpoint: string;
  signer?: RequestSigner;
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface ApiResult<T> {
  status: number;
  body: T;
  /** The `ETag` of the record answered with: give it as `ifMatch` to change it only if no other client did meanwhile. */
  etag?: string;
}

export class ApiClient {
  private readonly base: URL;
  private readonly fetch: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: ApiClientOptions) {
    this.base = new URL(options.endpoint.endsWith('/') ? options.endpoint : `${options.endpoint}/`);
    this.fetch = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /**
   * This client with requests bounded by `timeoutMs` too (the shorter of the two bounds applies):
   * `wait` bounds each look by the time left before its deadline.
   */
  withTimeout(timeoutMs: number): ApiClient {
    return new ApiClient({ ...this.options, timeoutMs: Math.min(this.timeoutMs, timeoutMs) });
  }

  get endpoint(): string {
    return this.base.href.replace(/\/$/, '');
  }

  createVolume(request: CreateVolumeRequest) {
    return this.request<VolumeDetails>('POST', '/volumes', { body: request });
  }

  listVolumes(query: { limit?: number; cursor?: string; state?: string; instanceId?: string }) {
    return this.request<VolumeList>('GET', '/volumes', { query });
  }

  getVolume(volumeId: string) {
    return this.request<VolumeDetails>('GET', `/volumes/${encodeURIComponent(volumeId)}`);
  }

  /** With `ifMatch` (an `etag` read before), the API answers 412 instead of changing a volume another client changed since. */
  patchVolume(volumeId: string, patch: PatchVolumeRequest, options: { ifMatch?: string } = {}) {
    const headers = options.ifMatch === undefined ? undefined : { 'if-match': options.ifMatch };
    return this.request<VolumeDetails>('PATCH', `/volumes/${encodeURIComponent(volumeId)}`, { body: patch, headers });
  }

  retryVolume(volumeId: string) {
    return this.request<VolumeDetails>('POST', `/volumes/${encodeURIComponent(volumeId)}/retry`);
  }

  deleteVolume(volumeId: string) {
    return this.request<VolumeDetails>('DELETE', `/volumes/${encodeURIComponent(volumeId)}`);
  }

  attach(volumeId: string, instanceId: string, request: PutAttachmentRequest = {}) {
    return this.request<AttachmentView>('PUT', attachmentPath(volumeId, instanceId), { body: request });
  }

  /** `force`: EC2 detaches with `Force`, which may lose data the instance did not flush (`?force=true`). */
  detach(volumeId: string, instanceId: string, options: { force?: boolean } = {}) {
    return this.request<AttachmentView>('DELETE', attachmentPath(volumeId, instanceId), { query: { force: options.force ? 'true' : undefined } });
  }

  retryAttachment(volumeId: string, instanceId: string) {
    return this.request<AttachmentView>('POST', `${attachmentPath(volumeId, instanceId)}/retry`);
  }

  instanceAttachments(instanceId: string) {
    return this.request<AttachmentList>('GET', `/instances/${encodeURIComponent(instanceId)}/attachments`);
  }

  /** A request the API did not answer, or not wholly, within the time: `wait` looks again. */
  private unanswered(method: string, path: string): ConnectionError {
    return new ConnectionError(`the API at ${this.endpoint} did not answer ${method} ${path} within ${this.timeoutMs / 1000} s${outcomeOf(method)}`, true);
  }

  async request<T>(
    method: string,
    path: string,
    options: { query?: Record<string, string | number | undefined>; body?: unknown; headers?: Record<string, string> | undefined } = {},
  ): Promise<ApiResult<T>> {
    const url = new URL(path.replace(/^\//, ''), this.base);
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    let headers: Record<string, string> = { accept: 'application/json, application/problem+json', ...options.headers };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.options.signer) {
      headers = await this.options.signer({ method, url, headers, ...(body !== undefined ? { body } : {}) });
      delete headers.host; // fetch sets the same Host itself and refuses to take it from us
    }

    let response: Response;
    try {
      response = await this.fetch(url, {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      if (isTimeout(error)) throw this.unanswered(method, path);
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      const local = LOOPBACK_HOST.test(url.hostname);
      const hint = local ? ' (is the local runtime running? start it with `npm start`)' : ' (check the URL, and that this machine reaches it)';
      throw new ConnectionError(`cannot reach the API at ${this.endpoint}: ${cause}${hint}`);
    }

    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // The status came, the rest of the answer did not: the request reached the API, as for one not answered at all.
      if (isTimeout(error)) throw this.unanswered(method, path);
      const cause = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error);
      throw new ConnectionError(`the answer of the API at ${this.endpoint} to ${method} ${path} was cut off (${cause})${outcomeOf(method)}`);
    }
    const contentType = response.headers.get('content-type') ?? '';
    let parsed: unknown;
    if (text && /json/.test(contentType)) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    // The API answers with JSON: anything else is another server at the endpoint (a web page, say).
    const notTheApi = () => `${method} ${url.href} answered ${response.status} with ${contentType || 'no content type'}, not the provisioner API's JSON: is ${this.endpoint} its URL?`;
    if (!response.ok) {
      const problem = isProblem(parsed) ? parsed : undefined;
      const gatewayMessage = typeof (parsed as { message?: unknown })?.message === 'string' ? (parsed as { message: string }).message : undefined;
      // Such a server's error page is named, not printed whole; its JSON is printed after the name; plain text as it is.
      const page = parsed === undefined && text !== '' && !/^text\/plain\b/.test(contentType);
      const foreignJson = parsed !== undefined && problem === undefined;
      const message =
        problem?.detail ??
        (gatewayMessage === undefined ? undefined : gatewayAnswer(response.status, gatewayMessage, method)) ??
        (page ? notTheApi() : foreignJson ? `${notTheApi()} It answered: ${text}` : text);
      throw new ApiError(response.status, problem, message || response.statusText, parsed);
    }
    if (parsed === undefined) throw new Error(notTheApi());
    const etag = response.headers.get('etag');
    return { status: response.status, body: parsed as T, ...(etag !== null ? { etag } : {}) };
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** What a request that reached the API, or may have, left done: a write may be stored, as with API Gateway's 504. */
function outcomeOf(method: string): string {
  return method === 'GET' ? '; nothing was changed: try again' : '; the change may have been made: read the record before repeating it';
}

/**
 * API Gateway's own `{"message"}` answer, with what it means where it does not say: deployed, a 502
 * or 500 `Internal server error` is API Gateway's, not the function's (which answers a problem,
 * `internal`). A 502: the function ran but failed or ran out of its time, so a write may have been
 * stored before it stopped. A 500: Lambda refused to run the function, so nothing was done.
 * (https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html)
 */
function gatewayAnswer(status: number, message: string, method: string): string {
  if (status === 502) {
    const outcome = method === 'GET' ? 'safe to retry' : 'the change may have been made: read the record before repeating it';
    return `${message}: the API function failed or did not finish in time; ${outcome}`;
  }
  if (status === 500) return `${message}: the API function could not be run; nothing was done, safe to retry`;
  return message;
}

function attachmentPath(volumeId: string, instanceId: string): string {
  return `/volumes/${encodeURIComponent(volumeId)}/attachments/${encodeURIComponent(instanceId)}`;
}

function isProblem(value: unknown): value is ProblemBody {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as ProblemBody).status === 'number' &&
    typeof (value as ProblemBody).title === 'string'
  );
}
