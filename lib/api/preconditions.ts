/**
 * Optimistic concurrency (RFC 9110 §8.8.3, §13.1.1): a volume's or attachment's entity tag names
 * the `generation` of its client-owned part and when the record was created (so a record deleted
 * and created again under the same id has another tag), and `If-Match` makes a write conditional
 * on it. The system's own status writes leave the tag alone: they are not the client's to
 * conflict with.
 */
import { ApiProblem } from './problem.js';

/** What an `If-Match` header asks for. */
export interface Precondition {
  /** The header as sent, for messages. */
  header: string;
  /** `*`: any current record. */
  any: boolean;
  /** Its strong entity tags, quoted as sent; empty when it has none (weak or malformed tags). */
  tags: readonly string[];
  /**
   * Why the header can never match, whatever the record: `malformed` (not `*` nor a list of quoted
   * entity tags) or `weak` (only `W/` tags, which If-Match never matches). A client that sends such
   * a header has a bug to fix, not a record to read again.
   */
  fault?: 'malformed' | 'weak';
}

/** What a record's entity tag is made of: its generation (an attachment written before it had one is at 1) and its creation time. */
export interface Versioned {
  generation?: number;
  createdAt: string;
}

/**
 * The strong entity tag of a record: its generation and its creation time in milliseconds, base
 * 36, e.g. `"7.mhv9wq8g"`. A `createdAt` that is no time (written straight into the table) leaves
 * the generation alone, e.g. `"7"`.
 */
export function entityTag(record: Versioned): string {
  const generation = record.generation ?? 1;
  const createdMs = Date.parse(record.createdAt);
  return Number.isNaN(createdMs) || createdMs < 0 ? `"${generation}"` : `"${generation}.${createdMs.toString(36)}"`;
}

/**
 * One element of an `If-Match` list at the start of the rest: `W/"…"` (weak) or `"…"` (strong) per
 * RFC 9110 §8.8.3, or nothing (an empty element, which §5.6.1.2 says to ignore), then the comma
 * or the end. The opaque part may hold a comma, so the list is not split on commas.
 */
const LIST_ELEMENT = /^[ \t]*(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)")?[ \t]*(?:,|$)/;

/**
 * Reads an `If-Match` header: `*`, or a comma-separated list of entity tags. Weak tags never match
 * (If-Match compares strongly); a list that is not well formed matches nothing, so the write is
 * refused with 412 rather than made without the precondition the client meant to give.
 */
export function parseIfMatch(header: string): Precondition {
  const text = header.trim();
  if (text === '*') return { header, any: true, tags: [] };
  const none: Precondition = { header, any: false, tags: [], fault: 'malformed' };
  const strong: string[] = [];
  let tags = 0;
  for (let rest = text; rest !== ''; ) {
    const match = LIST_ELEMENT.exec(rest);
    if (!match || match[0] === '') return none;
    const [element, weak, opaque] = match;
    rest = rest.slice(element.length);
    if (opaque === undefined) continue;
    tags++;
    if (!weak) strong.push(`"${opaque}"`);
  }
  if (tags === 0) return none;
  return strong.length === 0 ? { header, any: false, tags: strong, fault: 'weak' } : { header, any: false, tags: strong };
}

/** What is wrong with a header that can never match: for the detail and for `errors`. */
const FAULTS: Record<NonNullable<Precondition['fault']>, (example: string) => { detail: string; message: string }> = {
  malformed: (example) => ({
    detail: `If-Match must be a list of quoted entity tags or *, such as ${example}`,
    message: `must be a list of quoted entity tags or *, such as ${example}`,
  }),
  weak: (example) => ({
    detail: `weak entity tags (W/) never match: If-Match compares strongly; send the ETag as the API gave it, such as ${example}`,
    message: `weak entity tags (W/) never match; send the ETag as the API gave it, such as ${example}`,
  }),
};

/**
 * Throws 412 unless `precondition` holds for `record`, which `label` names (undefined: the record
 * does not exist). Nothing given: nothing to check.
 */
export function requirePrecondition(precondition: Precondition | undefined, label: string, record: Versioned | undefined): void {
  if (precondition === undefined) return;
  if (precondition.fault !== undefined) {
    // Not a record changed since: reading it again would not help, so the message says what to fix.
    const tag = record === undefined ? undefined : entityTag(record);
    const fault = FAULTS[precondition.fault](tag ?? '"3.mhv9wq8g"');
    throw new ApiProblem(
      'precondition-failed',
      `If-Match ${precondition.header.trim() === '' ? '(empty)' : precondition.header} never matches: ${fault.detail}; nothing was changed`,
      [{ path: 'If-Match', message: fault.message }],
      tag === undefined ? undefined : { ETag: tag },
    );
  }
  if (record === undefined) {
    throw new ApiProblem('precondition-failed', `${label} does not exist, so If-Match ${precondition.header} does not hold; nothing was changed`, [
      { path: 'If-Match', message: 'names a record that does not exist' },
    ]);
  }
  const tag = entityTag(record);
  if (precondition.any || precondition.tags.includes(tag)) return;
  const generation = record.generation ?? 1;
  throw new ApiProblem(
    'precondition-failed',
    `${label} is at generation ${generation} (ETag ${tag}), not the one If-Match ${precondition.header} names; nothing was changed: read it again and reapply the change`,
    [{ path: 'If-Match', message: `does not name the current record (ETag ${tag}): changed or created again since` }],
    { ETag: tag },
  );
}
