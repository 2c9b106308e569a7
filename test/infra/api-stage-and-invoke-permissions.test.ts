/**
 * What docs/api.md and docs/openapi.json say of the deployed API that the template decides: the
 * stage is `v1` with detailed (per-method) metrics, the endpoint Regional, query parameters are
 * required only where the spec says so; and who may invoke
 * which function: API Gateway the api function, through one permission for this API, and the
 * schedule the reconciler; nothing else is given a resource-based permission.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSynthesized, resourceId, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

const ofType = (type: string) => Object.values(s.json.Resources).filter((resource) => resource.Type === type).map((resource) => resource.Properties!);

describe('API stage and parameters', () => {
  it('the stage is v1, the base path of the documented URL', () => {
    expect(ofType('AWS::ApiGateway::Stage').map((stage) => stage.StageName)).toEqual(['v1']);
  });

  it('the endpoint is Regional and the stage keeps detailed metrics for every method, as docs/api.md says', () => {
    expect(ofType('AWS::ApiGateway::RestApi').map((api) => api.EndpointConfiguration)).toEqual([{ Types: ['REGIONAL'] }]);
    const settings = ofType('AWS::ApiGateway::Stage').flatMap((stage) => stage.MethodSettings as { HttpMethod: string; ResourcePath: string; MetricsEnabled?: boolean }[]);
    expect(settings.map(({ HttpMethod, ResourcePath, MetricsEnabled }) => ({ HttpMethod, ResourcePath, MetricsEnabled }))).toEqual([{ HttpMethod: '*', ResourcePath: '/*', MetricsEnabled: true }]);
    const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
    expect(doc).toContain('The API\'s endpoint is Regional (`EndpointConfiguration` `REGIONAL`');
    expect(doc).toContain("its stage turns on API Gateway's detailed metrics");
  });

  it('a query parameter is required by API Gateway exactly when docs/openapi.json says so (none is: each has a default or is a filter)', () => {
    const openApi = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string; required?: boolean }[] }>>;
    };
    const documented = new Map<string, boolean>();
    for (const operations of Object.values(openApi.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'query') documented.set(`${method.toUpperCase()} ${parameter.name}`, parameter.required === true);
        }
      }
    }
    expect(documented.size).toBeGreaterThan(0);
    const declared = new Map<string, boolean>();
    for (const method of ofType('AWS::ApiGateway::Method')) {
      for (const [name, required] of Object.entries((method.RequestParameters ?? {}) as Record<string, boolean>)) {
        const query = /^method\.request\.querystring\.(.+)$/.exec(name)?.[1];
        if (query !== undefined) declared.set(`${method.HttpMethod as string} ${query}`, required);
      }
    }
    expect(Object.fromEntries(declared)).toEqual(Object.fromEntries(documented));
  });
});

describe('resource-based invoke permissions', () => {
  it('API Gateway may invoke the api function, from this API only, by one permission; the schedule the reconciler; no one else any function', () => {
    const permissions = ofType('AWS::Lambda::Permission');
    const functionRef = (prefix: string) => ({ 'Fn::GetAtt': [resourceId(s.json, 'AWS::Lambda::Function', prefix), 'Arn'] });
    const restApi = { Ref: resourceId(s.json, 'AWS::ApiGateway::RestApi', 'ApiRestApi') };
    const rule = { 'Fn::GetAtt': [resourceId(s.json, 'AWS::Events::Rule', 'ReconcilerSchedule'), 'Arn'] };
    expect(permissions).toHaveLength(2);
    const api = permissions.filter((permission) => permission.Principal === 'apigateway.amazonaws.com');
    expect(api).toHaveLength(1);
    expect(api[0]).toMatchObject({ Action: 'lambda:InvokeFunction', FunctionName: functionRef('FunctionsApi') });
    expect(JSON.stringify(api[0]!.SourceArn)).toContain(JSON.stringify(restApi));
    expect(permissions.filter((permission) => permission !== api[0])).toEqual([
      { Action: 'lambda:InvokeFunction', FunctionName: functionRef('FunctionsReconciler'), Principal: 'events.amazonaws.com', SourceArn: rule },
    ]);
  });
});
