/**
 * Each method of the deployed API carries the `operationId` docs/openapi.json gives its path and
 * method as its operation name (what API Gateway exports and SDKs generated from it are named by).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSynthesized, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

describe('API methods', () => {
  it('are named by the operationId of docs/openapi.json', () => {
    const openApi = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, { operationId: string }>> };
    const documented = Object.values(openApi.paths).flatMap((operations) => Object.entries(operations).map(([method, operation]) => `${method.toUpperCase()} ${operation.operationId}`));
    const methods = Object.values(s.json.Resources)
      .filter((resource) => resource.Type === 'AWS::ApiGateway::Method')
      .map((resource) => `${resource.Properties!.HttpMethod as string} ${resource.Properties!.OperationName as string}`);
    expect(documented.length).toBeGreaterThan(0);
    expect(methods.sort()).toEqual(documented.sort());
  });
});
