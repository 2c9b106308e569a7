/**
 * JSON with object keys sorted, so equal values compare equal whatever order their keys were set
 * in: records read back from DynamoDB need not keep the order their maps (tags) were written in.
 * Keys whose value is undefined are left out, as JSON.stringify does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === 'object' && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner,
  );
}
