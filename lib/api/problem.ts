/**
 * Problem details (RFC 9457) for every API error: one error class the service and the handler
 * throw, and one formatter that turns any thrown value into an `application/problem+json` body.
 */

/** A field-level complaint; `path` is dotted from the request body (`fieldPath`: `spec.tags["team.name"]`) or names the parameter. */
export interface FieldIssue {
  path: string;
  message: string;
}

/** The kinds of problem the API reports; each has a fixed type URI, title and status. */
export const PROBLEM_KINDS = {
  'validation-failed': { status: 400, title: 'The request is not valid' },
  'malformed-json': { status: 400, title: 'The request body is not valid JSON' },
  'not-found': { status: 404, title: 'Not found' },
  'no-such-route': { status: 404, title: 'No such route' },
  'method-not-allowed': { status: 405, title: 'Method not allowed' },
  conflict: { status: 409, title: 'Conflict with the current state' },
  'invalid-record': { status: 409, title: 'The record in the table is not valid' },
  'precondition-failed': { status: 412, title: 'Precondition failed' },
  'body-too-large': { status: 413, title: 'The request body is too large' },
  'unsupported-media-type': { status: 415, title: 'Unsupported content type' },
  internal: { status: 500, title: 'Internal error' },
  // Given by API Gateway itself, deployed (gateway responses), never by the function.
  'missing-authentication-token': { status: 403, title: 'The request is not signed, or names no route' },
  'not-authorized': { status: 403, title: 'The caller is not authorized' },
  throttled: { status: 429, title: 'Too many requests' },
  'no-answer': { status: 504, title: 'The API function did not answer' },
} as const;
export type ProblemKind = keyof typeof PROBLEM_KINDS;

/** The JSON body of an error response. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors: FieldIssue[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** Stable, dereference-free identifier of a problem kind (RFC 9457 allows any URI). */
export function problemType(kind: ProblemKind): string {
  return `urn:ebs-provisioner:problem:${kind}`;
}

/** An error the API reports to the client as it is. */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  readonly status: number;
  constructor(
    readonly kind: ProblemKind,
    readonly detail: string,
    readonly errors: FieldIssue[] = [],
    /** Extra response headers, e.g. `Allow` on a 405. */
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.status = PROBLEM_KINDS[kind].status;
  }

  toBody(): ProblemBody {
    return {
      type: problemType(this.kind),
      title: PROBLEM_KINDS[this.kind].title,
      status: this.status,
      detail: this.detail,
      errors: this.errors,
    };
  }

  /** The HTTP answer: problem+json, never stored (as every answer of the API), with its extra headers. */
  toResponse(): { statusCode: number; headers: Record<string, string>; body: string } {
    return {
      statusCode: this.status,
      headers: { 'Content-Type': PROBLEM_CONTENT_TYPE, 'Cache-Control': 'no-store', ...this.headers },
      body: JSON.stringify(this.toBody()),
    };
  }
}

/** Shorthand for a 400 carrying field issues. */
export function invalid(detail: string, errors: FieldIssue[]): ApiProblem {
  return new ApiProblem('validation-failed', detail, errors);
}

/**
 * A gateway response's body template for `kind`: API Gateway's own refusals (throttling, a bad
 * signature, a route it does not know) as problems too, with its message as `detail`. Templates
 * take simple `$context` substitution only; `messageString` is the message quoted for JSON.
 *
 * @example
 * gatewayProblemTemplate('throttled')
 * // {"type":"urn:ebs-provisioner:problem:throttled","title":"Too many requests","status":429,"detail":$context.error.messageString,"errors":[]}
 */
export function gatewayProblemTemplate(kind: ProblemKind): string {
  const { status, title } = PROBLEM_KINDS[kind];
  const fixed = JSON.stringify({ type: problemType(kind), title, status });
  return `${fixed.slice(0, -1)},"detail":$context.error.messageString,"errors":[]}`;
}
