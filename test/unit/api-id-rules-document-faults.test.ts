/**
 * The id rules of docs/api.md are written from the OpenAPI document: each needs its description
 * and its pattern there, where the document gives them (a component, or a property of one), and
 * they replace the text between their two markers, in that order.
 */
import { describe, expect, it } from 'vitest';
import { ID_RULES_BEGIN, ID_RULES_END, buildOpenApiDocument, renderIdRules, withIdRules } from '../../lib/api/openapi.js';

type Schema = { description?: string; pattern?: string; properties?: Record<string, Schema> };
const schemasOf = (document: ReturnType<typeof buildOpenApiDocument>) => document.components!.schemas as Record<string, Schema>;

describe('id rules written from the OpenAPI document', () => {
  it('are refused when an id is given no description, naming its schema', () => {
    const document = buildOpenApiDocument();
    delete schemasOf(document).VolumeId!.description;
    expect(() => renderIdRules(document)).toThrow('the OpenAPI document gives no description and pattern for VolumeId');
  });

  it('are refused when a property holding an id is missing, whatever its component gives', () => {
    const document = buildOpenApiDocument();
    const spec = schemasOf(document).VolumeSpec!;
    delete spec.properties!.snapshotId;
    spec.description = 'A volume spec.';
    spec.pattern = '^.*$';
    expect(() => renderIdRules(document)).toThrow('the OpenAPI document gives no description and pattern for VolumeSpec.snapshotId');
  });

  it('are not written into a text whose end marker comes before its begin marker', () => {
    expect(() => withIdRules(`a\n${ID_RULES_END}\nold\n${ID_RULES_BEGIN}\nb`, 'new')).toThrow(/no id rules to replace/);
  });
});
