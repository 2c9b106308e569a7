/**
 * JSON with object keys sorted, so equal values compare equal whatever order their keys were set
 * in: records read back from DynamoDB need not keep the order their maps (tags) were written in.
 * Keys whose value is undefined are left out, as JSON.stringify does.
 *
 * The output is what `JSON.stringify` gives for a copy of `value` whose objects were rebuilt with
 * their keys sorted, integer keys included (objects list those first, in numeric order), written
 * out directly: the watcher and the executor compare records with it on every change.
 *
 * @example canonicalJson({ b: 1, a: [true, undefined] }) // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  return write('', value) as string;
}

/**
 * Whether `a` and `b` are the same as canonical JSON: `sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })`.
 * The same value or object is so without being written out (records that share the fields a write
 * left as they were compare at once).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}

/** `value` as JSON with sorted keys, or undefined where JSON.stringify leaves it out. */
function write(key: string, value: unknown): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  if (value === null || typeof value !== 'object') return JSON.stringify(value) as string | undefined;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += `${i > 0 ? ',' : ''}${write(String(i), value[i]) ?? 'null'}`;
    return `${out}]`;
  }
  let out = '{';
  let first = true;
  for (const name of sortedKeys(value)) {
    const written = write(name, (value as Record<string, unknown>)[name]);
    if (written === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(name)}:${written}`;
    first = false;
  }
  return `${out}}`;
}

/** The keys an object rebuilt with sorted keys lists: integer keys in numeric order (Object.keys gives them first), then the rest sorted. */
function sortedKeys(value: object): string[] {
  const keys = Object.keys(value);
  let integers = 0;
  while (integers < keys.length && isIntegerKey(keys[integers]!)) integers++;
  if (integers === 0) return keys.sort();
  return [...keys.slice(0, integers), ...keys.slice(integers).sort()];
}

/** Whether objects order `key` as an integer index (listed first, in numeric order). */
function isIntegerKey(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key) && Number(key) < 4294967295;
}
