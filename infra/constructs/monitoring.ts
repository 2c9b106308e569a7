import { Duration, Validations } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS } from '../../lib/settings.js';

/** Stream lag the watcher may build up before someone is told: records are still far from their maximum age. */
export const ITERATOR_AGE_ALARM_MS = 5 * 60 * 1000;
const PERIOD = Duration.minutes(5);

export interface MonitoringProps {
  readonly alarmEmail?: string;
  readonly functions: Readonly<Record<string, lambda.IFunction>>;
  readonly watcher: lambda.IFunction;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly streamFailureQueue: sqs.IQueue;
  readonly api: apigw.RestApi;
}

/** Alarms (all to one SNS topic) and the operations dashboard. */
export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'AlarmTopic', { enforceSSL: true });
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    Validations.of(this.topic).acknowledge({
      id: 'AwsSolutions-SNS2',
      reason: 'Alarm notifications carry no data beyond alarm names; CloudWatch cannot publish to a topic encrypted with the AWS managed SNS key.',
    });

    const engineMetric = (metricName: string) =>
      new cloudwatch.Metric({ namespace: METRICS.namespace, metricName, statistic: 'Sum', period: PERIOD });
    this.alarm('OperationsFailed', engineMetric(METRICS.failed), 0, 'Operations ended in a terminal error state.');
    this.alarm('LeakedVolumes', engineMetric(METRICS.leaked).with({ statistic: 'Maximum' }), 0,
      'Volumes carrying this deployment\'s ownership tag that no record owns.');
    this.alarm('DeadLetterMessages',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }), 0,
      'Operation messages failed every receive and were moved to the dead-letter queue.');
    this.alarm('StreamFailures',
      props.streamFailureQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }), 0,
      'Stream batches the watcher could not process within its retries or maximum record age.');
    this.alarm('WatcherIteratorAge',
      props.watcher.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) }), ITERATOR_AGE_ALARM_MS,
      'The watcher is falling behind the table stream.');
    for (const [name, fn] of Object.entries(props.functions)) {
      this.alarm(`${name}Errors`, fn.metricErrors({ period: PERIOD, statistic: 'Sum' }), 0, `The ${name} function failed invocations.`);
      this.alarm(`${name}Throttles`, fn.metricThrottles({ period: PERIOD, statistic: 'Sum' }), 0, `The ${name} function was throttled.`);
    }
    this.alarm('Api5xx', props.api.metricServerError({ period: PERIOD, statistic: 'Sum' }), 0, 'The API answered with server errors.');

    const search = (expression: string, label: string) =>
      new cloudwatch.MathExpression({ expression, label, period: PERIOD, usingMetrics: {} });
    new cloudwatch.Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new cloudwatch.GraphWidget({
            title: 'Operations by outcome',
            left: [search(`SEARCH('{${METRICS.namespace},operation,outcome} MetricName="${METRICS.operations}"', 'Sum', 300)`, 'operations')],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'EC2 call latency (p90, ms)',
            left: [search(`SEARCH('{${METRICS.namespace},operation} MetricName="${METRICS.latency}"', 'p90', 300)`, 'latency')],
            width: 12,
          }),
        ],
        [
          new cloudwatch.GraphWidget({
            title: 'Operation queue',
            left: [props.queue.metricApproximateNumberOfMessagesVisible(), props.deadLetterQueue.metricApproximateNumberOfMessagesVisible()],
            right: [props.queue.metricApproximateAgeOfOldestMessage()],
            width: 12,
          }),
          new cloudwatch.GraphWidget({
            title: 'Stream lag (watcher iterator age, ms)',
            left: [props.watcher.metric('IteratorAge', { statistic: 'Maximum', period: Duration.minutes(1) })],
            width: 12,
          }),
        ],
      ],
    });
  }

  private alarm(id: string, metric: cloudwatch.IMetric, threshold: number, description: string): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      threshold,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: description,
    });
    alarm.addAlarmAction(new actions.SnsAction(this.topic));
    this.alarms.push(alarm);
  }
}
