/**
 * API Gateway reports a REST API's metrics under its name (dimension `ApiName`), and the `Api5xx`
 * alarm reads them by that name: each deployment's API is named after its stack, so the alarm of
 * one deployment hears its own API's 5xx answers, not those of another in the same account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSynthesized, resourceId, synthesize } from './synth.js';

let a: ReturnType<typeof apiOf>;
let b: ReturnType<typeof apiOf>;
beforeAll(() => {
  a = apiOf('TeamA');
  b = apiOf('TeamB');
}, 120_000);
afterAll(removeSynthesized);

function apiOf(stackName: string): { name: unknown; alarmDimensions: unknown } {
  const { json } = synthesize({}, { bundle: false, stackName });
  return {
    name: json.Resources[resourceId(json, 'AWS::ApiGateway::RestApi', 'ApiRestApi')]!.Properties!.Name,
    alarmDimensions: json.Resources[resourceId(json, 'AWS::CloudWatch::Alarm', 'MonitoringApi5xx')]!.Properties!.Dimensions,
  };
}

describe('the Api5xx alarm of two deployments in one account', () => {
  it('each reads the 5xx of its own API, named after its stack', () => {
    expect(a.name).toBe('TeamA-api');
    expect(b.name).toBe('TeamB-api');
    expect(a.alarmDimensions).toEqual([{ Name: 'ApiName', Value: 'TeamA-api' }]);
    expect(b.alarmDimensions).toEqual([{ Name: 'ApiName', Value: 'TeamB-api' }]);
  });
});
