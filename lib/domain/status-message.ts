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
  // Room for the marker at its longest, so that the list and its marker fit.
  const room = max - marker(items.length).length;
  let listed = 0;
  let text = '';
  for (const item of items) {
    const next = listed === 0 ? item : `${text}${separator}${item}`;
    if (next.length > room) break;
    text = next;
    listed++;
  }
  if (listed === 0) {
    text = shortenMessage(items[0]!, room);
    listed = 1;
  }
  const left = items.length - listed;
  return left > 0 ? `${text}${marker(left)}` : text;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
