/**
 * Validation of request parts with zod, turning failures into field-level problem messages that
 * name the field the way the client wrote it (`spec.sizeGiB`, `cursor`, `volumeId`).
 */
import type { z } from 'zod';
import { describeValidationIssues, fieldIssues, missingField } from '../domain/validation.js';
import { invalid } from './problem.js';

/** Where a value came from; names the request part in the problem detail. */
export type RequestPart = 'body' | 'query' | 'path';

const PART_NAMES: Record<RequestPart, string> = {
  body: 'the request body',
  query: 'the query string',
  path: 'the path',
};

/** Parses `value` with `schema`, or throws a 400 problem listing every field issue. */
export function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown, part: RequestPart): z.output<S> {
  const result = schema.safeParse(value, { error: missingField });
  if (result.success) return result.data;
  const issues = fieldIssues(result.error.issues);
  throw invalid(`${PART_NAMES[part]} is not valid: ${describeValidationIssues(issues)}`, issues);
}

/** A range of whole numbers; without `max`, any from `min` up to the largest a number holds exactly. */
export interface WholeNumberRange {
  min: number;
  max?: number;
}

/** What a whole number in `range` must be, e.g. `must be a whole number from 1 to 100`. */
export function wholeNumberMessage({ min, max = Number.MAX_SAFE_INTEGER }: WholeNumberRange): string {
  return `must be a whole number from ${min} to ${max}`;
}

/**
 * The whole number `text` writes in plain decimal digits, when it lies in `range`; undefined for
 * anything else. Signs, exponents (`1e1`), hexadecimal (`0x10`) and spaces are not whole numbers
 * as a person writes them in a query string or on a command line, though `Number()` reads them.
 */
export function readWholeNumber(text: string, { min, max = Number.MAX_SAFE_INTEGER }: WholeNumberRange): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  // Past 2^53 - 1 `Number()` rounds: 99999999999999999999 would be read as 1e20, not the number written.
  const value = Number(text);
  return value >= min && value <= max && Number.isSafeInteger(value) ? value : undefined;
}
