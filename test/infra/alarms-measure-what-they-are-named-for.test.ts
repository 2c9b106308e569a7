/**
 * Each alarm of the README's table (Deploy, "What each alarm means and what to do") watches the
 * metric of the resource its row names: `OperationsFailed` the failed-operations count, not the
 * invalid records; `DeadLetters` the dead-letter queue, not the stream failure queue; each
 * `<Function>Errors` that function's errors, not its throttles.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../infra/constructs/functions.js';
import { METRICS } from '../../lib/settings.js';
import { removeSynthesized, resourceId, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

const NAMESPACE = 'EbsProvisioner/EbsProvisionerTest';
const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);
const alarm = (name: string) => s.json.Resources[resourceId(s.json, 'AWS::CloudWatch::Alarm', `Monitoring${name}`)]!.Properties!;
const measured = (name: string) => {
  const { Namespace, MetricName, Dimensions } = alarm(name);
  return { Namespace, MetricName, Dimensions };
};
const queueName = (prefix: string) => [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [resourceId(s.json, 'AWS::SQS::Queue', `Storage${prefix}`), 'QueueName'] } }];
const functionName = (name: string) => [{ Name: 'FunctionName', Value: { Ref: resourceId(s.json, 'AWS::Lambda::Function', `Functions${capitalized(name)}`) } }];

describe('each alarm watches what its name says', () => {
  it('the engine\'s counters: OperationsFailed, InvalidRecords, LeakedVolumes and ReconcilerPasses, each under its own alarm', () => {
    expect(measured('OperationsFailed')).toEqual({ Namespace: NAMESPACE, MetricName: METRICS.failed, Dimensions: undefined });
    expect(measured('InvalidRecords')).toEqual({ Namespace: NAMESPACE, MetricName: METRICS.invalidRecords, Dimensions: undefined });
    expect(measured('LeakedVolumes')).toEqual({ Namespace: NAMESPACE, MetricName: METRICS.leaked, Dimensions: undefined });
    expect(measured('ReconcilerNotRunning')).toEqual({ Namespace: NAMESPACE, MetricName: METRICS.reconcilerPasses, Dimensions: undefined });
  });

  it('DeadLetters the dead-letter queue, StreamFailures the stream failure queue, ExecutorBacklog the operation queue', () => {
    const visible = { Namespace: 'AWS/SQS', MetricName: 'ApproximateNumberOfMessagesVisible' };
    expect(measured('DeadLetters')).toEqual({ ...visible, Dimensions: queueName('DeadLetterQueue') });
    expect(measured('StreamFailures')).toEqual({ ...visible, Dimensions: queueName('StreamFailureQueue') });
    expect(measured('ExecutorBacklog')).toEqual({ ...visible, Dimensions: queueName('OperationQueue') });
  });

  it('DeadLetters and StreamFailures fire on a message there at any time of the minute: the largest count', () => {
    for (const name of ['DeadLetters', 'StreamFailures']) {
      expect(alarm(name), name).toMatchObject({ Statistic: 'Maximum', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    }
  });

  it.each(FUNCTION_NAMES)('%s: <Function>Errors its failed invocations, <Function>Throttles its throttles', (name) => {
    const id = capitalized(name);
    expect(measured(`${id}Errors`)).toEqual({ Namespace: 'AWS/Lambda', MetricName: 'Errors', Dimensions: functionName(name) });
    expect(measured(`${id}Throttles`)).toEqual({ Namespace: 'AWS/Lambda', MetricName: 'Throttles', Dimensions: functionName(name) });
  });

  it('the watcher\'s own alarms its IteratorAge and DestinationDeliveryFailures', () => {
    expect(measured('WatcherIteratorAge')).toEqual({ Namespace: 'AWS/Lambda', MetricName: 'IteratorAge', Dimensions: functionName('watcher') });
    expect(measured('WatcherDestinationDeliveryFailures')).toEqual({ Namespace: 'AWS/Lambda', MetricName: 'DestinationDeliveryFailures', Dimensions: functionName('watcher') });
  });

  it('Api5xx the API\'s 5xx answers, never the 4xx it gives clients', () => {
    expect(measured('Api5xx')).toMatchObject({ Namespace: 'AWS/ApiGateway', MetricName: '5XXError' });
  });
});
