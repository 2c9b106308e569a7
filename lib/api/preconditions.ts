/**
 * Optimistic concurrency (RFC 9110 §8.8.3, §13.1.1): a volume's or attachment's entity tag names
 * the `generation` of its client-owned part, and `If-Match` makes a write conditional on it. The
 * system's own status writes leave the tag alone: they are not the client's to conflict with.
 */
import { ApiProblem } from './problem.js';

/** What an `If-Match` header asks for. */
export interface Precondition {
  /** The header as sent, for messages. */
  header: string;
  /** `*`: any current record. */
  any: boolean;
  /** The generations its strong entity tags name; empty when none does (weak, malformed or foreign tags). */
  generations: readonly number[];
}

/** The strong entity tag of a record at `generation`, e.g. `"7"`. */
export function entityTag(generation: number): string {
  return `"${generation}"`;
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
  if (text === '*') return { header, any: true, generations: [] };
  const none: Precondition = { header, any: false, generations: [] };
  const generations: number[] = [];
  let tags = 0;
  for (let rest = text; rest !== ''; ) {
    const match = LIST_ELEMENT.exec(rest);
    if (!match || match[0] === '') return none;
    const [element, weak, opaque] = match;
    rest = rest.slice(element.length);
    if (opaque === undefined) continue;
    tags++;
    if (!weak && /^[1-9][0-9]{0,15}$/.test(opaque)) generations.push(Number(opaque));
  }
  return tags === 0 ? none : { header, any: false, generations };
}

/**
 * Throws 412 unless `precondition` holds for the record `label` names at `generation`
 * (undefined: the record does not exist). Nothing given: nothing to check.
 */
export function requirePrecondition(precondition: Precondition | undefined, label: string, generation: number | undefined): void {
  if (precondition === undefined) return;
  if (generation === undefined) {
    throw new ApiProblem('precondition-failed', `${label} does not exist, so If-Match ${precondition.header} does not hold; nothing was changed`, [
      { path: 'If-Match', message: 'names a record that does not exist' },
    ]);
  }
  if (precondition.any || precondition.generations.includes(generation)) return;
  const tag = entityTag(generation);
  throw new ApiProblem(
    'precondition-failed',
    `${label} is at generation ${generation} (ETag ${tag}), not the one If-Match ${precondition.header} names; nothing was changed: read it again and reapply the change`,
    [{ path: 'If-Match', message: `does not name the current generation ${generation} (ETag ${tag})` }],
    { ETag: tag },
  );
}
