/**
 * Alarms on what needs a person (failed operations, invalid records, dead letters, an executor backlog, stream lag
 * and undeliverable stream failures, function errors and throttles, API 5xx, leaked volumes, a reconciler that no
 * longer runs), all sent to one SNS topic, and a dashboard of the pipeline.
 */
import { ArnFormat, Duration, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EXECUTOR, METRICS, RECONCILER } from '../../lib/settings.js';
import type { FunctionName } from './functions.js';

/** Stream lag the watcher may build up before someone is told: well inside WATCHER.maxRecordAgeSeconds. */
export const ITERATOR_AGE_ALARM_MS = 5 * 60 * 1000;

/**
 * The period of the alarms on the reconciler's passes (LeakedVolumes, ReconcilerNotRunning): three
 * reconciler intervals. The reconciler reports once a pass, at times that drift against
 * CloudWatch's period boundaries, so a period of one interval may hold no pass at all; three hold
 * two passes or more, even with one missed.
 */
const RECONCILER_PASSES_PERIOD_MINUTES = 3 * RECONCILER.intervalMinutes;

/**
 * Visible operation messages that, staying above it for 15 minutes, say the executor is not keeping
 * up: one full batch for each of its concurrent invocations, as many as it takes in at once.
 * Delayed messages (waits, progress checks, calls deferred for EC2's tokens) are not visible, so
 * work the executor is pacing does not count; a backlog of a full round that never drains does.
 */
export function executorBacklogThreshold(executorMaxConcurrency: number): number {
  return EXECUTOR.batchSize * executorMaxConcurrency;
}

export interface MonitoringProps {
  alarmEmail?: string;
  /** The deployment's CloudWatch namespace, where its functions' metrics are (`metricsNamespace`). */
  metricsNamespace: string;
  functions: Record<FunctionName, lambda.IFunction>;
  /** Concurrent executor invocations (`executorMaxConcurrency`), which set the backlog alarm's threshold. */
  executorMaxConcurrency: number;
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  streamFailureQueue: sqs.IQueue;
  restApi: apigateway.RestApi;
}

const MINUTE = Duration.minutes(1);
const FIVE_MINUTES = Duration.minutes(5);

export class Monitoring extends Construct {
  readonly topic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;
  private readonly action: actions.SnsAction;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    // Unencrypted: CloudWatch alarms cannot publish to a topic under the AWS-managed SNS key, and
    // notifications carry only alarm names and states.
    this.topic = new sns.Topic(this, 'AlarmTopic', { displayName: 'EBS provisioner alarms', enforceSSL: true });
    // enforceSSL gives the topic a policy of its own, which replaces SNS's default policy (the one
    // that let this account's services publish): without this statement no alarm could notify.
    const stack = Stack.of(this);
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowThisAccountsAlarmsToPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
        },
      }),
    );
    if (props.alarmEmail) this.topic.addSubscription(new subscriptions.EmailSubscription(props.alarmEmail));
    this.action = new actions.SnsAction(this.topic);

    const engineMetric = (metricName: string) =>
      new cloudwatch.Metric({ namespace: props.metricsNamespace, metricName, statistic: cloudwatch.Stats.SUM, period: MINUTE });

    this.alarm('OperationsFailed', engineMetric(METRICS.failed), {
      threshold: 0,
      description: 'An operation ended in a terminal error: the record is in status error. See the README, section Deploy.',
    });
    this.alarm('InvalidRecords', engineMetric(METRICS.invalidRecords), {
      threshold: 0,
      description: 'A record written into the table outside the API is not valid: it is in status error with code InvalidRecord (or, too large to take that status, only logged). See the README, section Deploy.',
    });
    // The largest count any pass of the period reported. A period without a pass (the reconciler
    // failing or not invoked, which ReconcilerErrors and ReconcilerNotRunning report) keeps the
    // alarm as it is: only passes that find no leak clear it.
    this.alarm('LeakedVolumes', engineMetric(METRICS.leaked).with({ period: Duration.minutes(RECONCILER_PASSES_PERIOD_MINUTES), statistic: cloudwatch.Stats.MAXIMUM }), {
      threshold: 0,
      treatMissingData: cloudwatch.TreatMissingData.IGNORE,
      description: 'The reconciler found volumes with this deployment\'s ownership tag that no record owns. See the README, section Deploy.',
    });
    // Every pass that ends, complete or cut short by its time, counts itself: a period without one
    // means no pass ended (its schedule disabled, its invoke permission gone, or every pass
    // failing), which no other alarm hears when the reconciler is not invoked at all.
    this.alarm('ReconcilerNotRunning', engineMetric(METRICS.reconcilerPasses).with({ period: Duration.minutes(RECONCILER_PASSES_PERIOD_MINUTES), statistic: cloudwatch.Stats.SAMPLE_COUNT }), {
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.LESS_THAN_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.BREACHING,
      description: `No reconciler pass finished in ${RECONCILER_PASSES_PERIOD_MINUTES} minutes. See the README, section Deploy.`,
    });
    this.alarm('DeadLetters', props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM }), {
      threshold: 0,
      description: 'Operation messages failed every delivery and sit in the dead-letter queue. See the README, section Deploy.',
    });
    this.alarm('ExecutorBacklog', props.queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.MINIMUM }), {
      threshold: executorBacklogThreshold(props.executorMaxConcurrency),
      evaluationPeriods: 3,
      description: 'Operation messages have waited for the executor in a backlog for 15 minutes. See the README, section Deploy.',
    });
    this.alarm('StreamFailures', props.streamFailureQueue.metricApproximateNumberOfMessagesVisible({ period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM }), {
      threshold: 0,
      description: 'The watcher gave up on a batch of table changes; their descriptions are in the stream failure queue. See the README, section Deploy.',
    });
    this.alarm('WatcherIteratorAge', props.functions.watcher.metric('IteratorAge', { period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM }), {
      threshold: ITERATOR_AGE_ALARM_MS,
      evaluationPeriods: 5,
      description: 'The watcher is more than 5 minutes behind the table stream. See the README, section Deploy.',
    });
    // Lambda counts here the stream batches it gave up on but could not put in the stream failure queue.
    this.alarm('WatcherDestinationDeliveryFailures', props.functions.watcher.metric('DestinationDeliveryFailures', { period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }), {
      threshold: 0,
      description: 'The watcher gave up on a batch of table changes and Lambda could not record it in the stream failure queue. See the README, section Deploy.',
    });
    for (const [name, fn] of Object.entries(props.functions)) {
      const id = name.charAt(0).toUpperCase() + name.slice(1);
      this.alarm(`${id}Errors`, fn.metricErrors({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }), {
        threshold: 0,
        description: `The ${name} function failed invocations. See the README, section Deploy.`,
      });
      this.alarm(`${id}Throttles`, fn.metricThrottles({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }), {
        threshold: 0,
        description: `The ${name} function was throttled. See the README, section Deploy.`,
      });
    }
    this.alarm('Api5xx', props.restApi.metricServerError({ period: FIVE_MINUTES, statistic: cloudwatch.Stats.SUM }), {
      threshold: 0,
      description: 'The API answered with 5xx errors. See the README, section Deploy.',
    });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    // SEARCH draws one line per dimension combination, whichever operations and outcomes occur.
    const search = (expression: string) => new cloudwatch.MathExpression({ expression, period: MINUTE, usingMetrics: {} });
    // A namespace with characters other than letters and digits (a stack name's hyphens) is quoted in a search's schema.
    const namespace = JSON.stringify(props.metricsNamespace);
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Operations by outcome',
        width: 12,
        left: [search(`SEARCH('{${namespace},operation,outcome} MetricName="${METRICS.operations}"', 'Sum', 60)`)],
        stacked: true,
      }),
      new cloudwatch.GraphWidget({
        title: 'EC2 call latency by operation (p90, ms)',
        width: 12,
        left: [search(`SEARCH('{${namespace},operation} MetricName="${METRICS.latency}"', 'p90', 60)`)],
      }),
    );
    const queues = [
      ['operations', props.queue],
      ['dead letters', props.deadLetterQueue],
      ['stream failures', props.streamFailureQueue],
    ] as const;
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Queue depth',
        width: 8,
        left: queues.map(([label, queue]) => queue.metricApproximateNumberOfMessagesVisible({ label, period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM })),
        // Delayed messages are the schedule (waits, progress checks, calls deferred for tokens), not a backlog.
        right: [
          props.queue.metricApproximateNumberOfMessagesNotVisible({ label: 'in flight', period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM }),
          props.queue.metricApproximateNumberOfMessagesDelayed({ label: 'delayed (scheduled)', period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM }),
        ],
      }),
      new cloudwatch.GraphWidget({
        title: 'Age of oldest message (s)',
        width: 8,
        left: [props.queue.metricApproximateAgeOfOldestMessage({ label: 'operations', period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM })],
      }),
      new cloudwatch.GraphWidget({
        title: 'Stream lag: watcher iterator age (ms)',
        width: 8,
        left: [props.functions.watcher.metric('IteratorAge', { label: 'iterator age', period: MINUTE, statistic: cloudwatch.Stats.MAXIMUM })],
        leftAnnotations: [{ value: ITERATOR_AGE_ALARM_MS, label: 'alarm' }],
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Function errors and throttles',
        width: 12,
        left: Object.entries(props.functions).map(([name, fn]) => fn.metricErrors({ label: `${name} errors`, period: FIVE_MINUTES })),
        right: Object.entries(props.functions).map(([name, fn]) => fn.metricThrottles({ label: `${name} throttles`, period: FIVE_MINUTES })),
      }),
      new cloudwatch.GraphWidget({
        title: 'Failed operations, invalid records, leaked and orphaned volumes',
        width: 12,
        left: [
          engineMetric(METRICS.failed).with({ label: 'failed operations' }),
          engineMetric(METRICS.invalidRecords).with({ label: 'invalid records' }),
          engineMetric(METRICS.leaked).with({ label: 'leaked volumes', statistic: cloudwatch.Stats.MAXIMUM }),
          // Volumes of records removed from the table, detached by their attachments: no alarm (the detach is the repair), but a sign of direct deletes.
          engineMetric(METRICS.orphanVolumesFound).with({ label: 'orphaned volumes detached' }),
        ],
      }),
    );
  }

  private alarm(
    id: string,
    metric: cloudwatch.IMetric,
    options: {
      threshold: number;
      comparisonOperator?: cloudwatch.ComparisonOperator;
      evaluationPeriods?: number;
      treatMissingData?: cloudwatch.TreatMissingData;
      description: string;
    },
  ): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      metric,
      threshold: options.threshold,
      comparisonOperator: options.comparisonOperator ?? cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: options.evaluationPeriods ?? 1,
      treatMissingData: options.treatMissingData ?? cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: options.description,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    return alarm;
  }
}
