/**
 * Each function's own role (infra/constructs/functions.ts) can be taken on by Lambda alone and
 * reaches CloudWatch Logs only to create streams in and write to its own log group, and each
 * function is told to map stack traces through its bundled source map.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../infra/constructs/functions.js';
import { actionsOf, removeSynthesized, resourceId, resourcesOf, roleStatements, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const functionOf = (name: string) => s.json.Resources[resourceId(s.json, 'AWS::Lambda::Function', `Functions${capitalized(name)}`)]!.Properties!;

describe.each(FUNCTION_NAMES)('%s function', (name) => {
  it('runs under a role only the Lambda service may assume', () => {
    const roleId = (functionOf(name).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(s.json.Resources[roleId]!.Properties!.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [{ Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } }],
    });
  });

  it('may only add streams and events to its own log group (the group itself is the stack\'s)', () => {
    const roleId = (functionOf(name).Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const onLogs = roleStatements(s.json, roleId).filter((statement) => actionsOf(statement).some((action) => action.startsWith('logs:')));
    expect(onLogs.flatMap(actionsOf).sort()).toEqual(['logs:CreateLogStream', 'logs:PutLogEvents']);
    expect(onLogs.every((statement) => statement.Effect === 'Allow')).toBe(true);
    const logGroup = { 'Fn::GetAtt': [resourceId(s.json, 'AWS::Logs::LogGroup', `Functions${capitalized(name)}Logs`), 'Arn'] };
    expect(onLogs.flatMap(resourcesOf)).toEqual([logGroup]);
  });

  it('reports stack traces through its source map (--enable-source-maps)', () => {
    const variables = (functionOf(name).Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.NODE_OPTIONS).toBe('--enable-source-maps');
  });
});
