/**
 * Validation of request parts with zod, turning failures into field-level problem messages that
 * name the field the way the client wrote it (`spec.sizeGiB`, `cursor`, `volumeId`).
 */
import type { z } from 'zod';
import { fieldPath } from '../domain/validation.js';
import { describeIssues, invalid, type FieldIssue } from './problem.js';

/** Where a value came from; names the request part in the problem detail. */
export type RequestPart = 'body' | 'query' | 'path';

const PART_NAMES: Record<RequestPart, string> = {
  body: 'the request body',
  query: 'the query string',
  path: 'the path',
};

/** Parses `value` with `schema`, or throws a 400 problem listing every field issue. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, part: RequestPart): z.output<S> {
  const result = schema.safeParse(value, {
    error: (issue) => (issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
  });
  if (result.success) return result.data;
  const issues = fieldIssues(result.error.issues);
  throw invalid(`${PART_NAMES[part]} is not valid: ${describeIssues(issues)}`, issues);
}

/** One field issue per zod issue; an unknown key becomes an issue on that key. */
export function fieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ path: fieldPath([...issue.path, key]), message: 'is not a known field' }));
    }
    return [{ path: fieldPath(issue.path), message: issue.message }];
  });
}
