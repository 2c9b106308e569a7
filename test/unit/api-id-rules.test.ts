/** The id rules docs/api.md carries, as rendered from an OpenAPI document. */
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, renderIdRules } from '../../lib/api/openapi.js';

describe('renderIdRules', () => {
  it('refuses a document that gives an id no pattern, naming the schema, rather than writing a rule without one', () => {
    const document = buildOpenApiDocument();
    const schemas = document.components!.schemas as Record<string, { pattern?: string; properties?: Record<string, { pattern?: string }> }>;
    const [name, schema] = Object.entries(schemas).find(([, s]) => s.pattern !== undefined)!;
    delete schema.pattern;
    expect(() => renderIdRules(document)).toThrow(`the OpenAPI document gives no description and pattern for ${name}`);
  });
});
