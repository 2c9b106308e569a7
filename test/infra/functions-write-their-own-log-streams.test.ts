/**
 * Each function logs to its own log group: its role may create log streams in that group and
 * put events to them (what Lambda needs of a function's role when the group exists), on no other
 * group; and its stack traces point at the TypeScript sources through the bundled source map.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../infra/constructs/functions.js';
import { actionsOf, removeSynthesized, resourceId, resourcesOf, roleStatements, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

it.each(FUNCTION_NAMES)('%s: creates log streams and puts events in its own log group only, with source-mapped stack traces', (name) => {
  const fn = s.json.Resources[resourceId(s.json, 'AWS::Lambda::Function', `Functions${capitalized(name)}`)]!.Properties!;
  const roleId = (fn.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
  const logGroup = { 'Fn::GetAtt': [resourceId(s.json, 'AWS::Logs::LogGroup', `Functions${capitalized(name)}Logs`), 'Arn'] };
  const onLogs = roleStatements(s.json, roleId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('logs:')));
  expect(onLogs.flatMap(actionsOf).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
  expect(onLogs.every((statement) => statement.Effect === 'Allow')).toBe(true);
  expect(onLogs.flatMap(resourcesOf)).toEqual([logGroup]);
  expect((fn.Environment as { Variables: Record<string, unknown> }).Variables.NODE_OPTIONS).toBe('--enable-source-maps');
});
