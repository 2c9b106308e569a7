/**
 * The deployed tables have the keys, of the types, that the local runtime creates and that
 * ensureTable requires of an existing table (lib/aws/table.ts): every key attribute a string,
 * as the record store and the rate budget write them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { rateBudgetTableDefinition, tableDefinition } from '../../lib/aws/table.js';
import { removeSynthesized, resourceId, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

const byName = (definitions: unknown) => [...(definitions as { AttributeName: string }[])].sort((a, b) => a.AttributeName.localeCompare(b.AttributeName));

it.each([
  ['record table', 'StorageTable', tableDefinition('records')],
  ['rate budget table', 'StorageRateBudgetTable', rateBudgetTableDefinition('rates')],
])('%s: its key attributes and their types as defined for the local runtime', (_, prefix, definition) => {
  const properties = s.json.Resources[resourceId(s.json, 'AWS::DynamoDB::Table', prefix)]!.Properties!;
  expect(byName(properties.AttributeDefinitions)).toEqual(byName(definition.AttributeDefinitions));
  expect(properties.KeySchema).toEqual(definition.KeySchema);
  const indexes = (properties.GlobalSecondaryIndexes ?? []) as { IndexName: string; KeySchema: unknown; Projection: unknown }[];
  expect(indexes.map(({ IndexName, KeySchema, Projection }) => ({ IndexName, KeySchema, Projection }))).toEqual(definition.GlobalSecondaryIndexes ?? []);
});
