/**
 * The one bound on the free text the system writes into a record's status. Its reasons may come
 * from untrusted input (every issue of a record written straight into the table, which names the
 * client's own field names) or from EC2; unbounded, they could make the record larger than
 * DynamoDB's 400 KB item limit, and then the status write itself fails.
 */

/**
 * The longest status message the system writes, in characters (at most 3 bytes each in UTF-8):
 * plenty for a person to read, and a small part of a record however large the rest of it is.
 */
export const MAX_STATUS_MESSAGE_CHARS = 2000;

/** `text` as it is, or cut to `max` characters ending with "…". */
export function shortenMessage(text: string, max = MAX_STATUS_MESSAGE_CHARS): string {
  if (text.length <= max) return text;
  let end = Math.max(0, max - 1);
  // Never cut a character in two (a UTF-16 surrogate pair).
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--;
  return `${text.slice(0, end)}…`;
}

/**
 * `text` as it is, or its start and its end within `max` characters, "…" between them (never
 * cutting a surrogate pair in two): how a name too long to give whole is shown (a key in a field
 * path, a field path), so that two long names differing at their start or at their end read apart.
 */
export function shortenMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  let head = Math.floor((max - 1) / 2);
  let tail = text.length - (max - 1 - head);
  if (head > 0 && isHighSurrogate(text.charCodeAt(head - 1))) head--;
  if (isLowSurrogate(text.charCodeAt(tail))) tail++;
  return `${text.slice(0, head)}…${text.slice(tail)}`;
}

/**
 * `before`, `text` and `after` joined within `max` characters: `text` (quoted from EC2 or an
 * error, of any length) is shortened (`shortenMessage`), so the system's words around it, which
 * say what happens next, stay whole. Should those alone not fit, the whole is shortened at its end.
 */
export function shortenAround(before: string, text: string, after: string, max = MAX_STATUS_MESSAGE_CHARS): string {
  const room = max - before.length - after.length;
  if (room < 1) return shortenMessage(`${before}${text}${after}`, max);
  return `${before}${shortenMessage(text, room)}${after}`;
}

/**
 * The longest text from EC2 or an error a status message quotes with more words of the system
 * after it (what it means, what to do) that are themselves wrapped as the status is built (the
 * reason of a give-up, a dying record's next attempt): the rest of the bound is room for those.
 */
export const MAX_QUOTED_CHARS = 1500;

/** `text`, from EC2 or an error, as a status message quotes it: at most `MAX_QUOTED_CHARS` (`shortenMessage`). */
export function quoted(text: string): string {
  return shortenMessage(text, MAX_QUOTED_CHARS);
}

/**
 * `items` joined by `separator` within `max` characters: as many whole items as fit, then
 * "… (N more)" for the rest (`more` words the count). A first item too long on its own is
 * shortened (`shortenMessage`).
 */
export function shortenList(
  items: readonly string[],
  separator: string,
  more: (count: number) => string = (count) => `${count} more`,
  max = MAX_STATUS_MESSAGE_CHARS,
): string {
  const whole = items.join(separator);
  if (whole.length <= max || items.length === 1) return shortenMessage(whole, max);
  const marker = (count: number) => `${separator}… (${more(count)})`;
  let listed = 0;
  let text = '';
  for (const item of items) {
    const next = listed === 0 ? item : `${text}${separator}${item}`;
    // Each item with the marker for those after it, so that the list and its marker fit.
    if (next.length + marker(items.length - listed - 1).length > max) break;
    text = next;
    listed++;
  }
  if (listed === 0) {
    text = shortenMessage(items[0]!, max - marker(items.length - 1).length);
    listed = 1;
  }
  // Not all of them: the whole list is longer than `max`, and they are listed within less.
  return `${text}${marker(items.length - listed)}`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
