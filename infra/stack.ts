/**
 * EbsProvisionerStack: the table and its stream, the operation queue, the four functions wired
 * to them, the API, the reconciler's schedule, least-privilege grants, alarms and a dashboard.
 */
import { CfnOutput, Duration, Names, Stack, Token, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { EXECUTOR, RECONCILER, WATCHER, metricsNamespace } from '../lib/settings.js';
import { resolveOptions, type DeploymentOptions, type ResolvedOptions } from './config.js';
import { Api } from './constructs/api.js';
import { acknowledgeWildcardResource } from './constructs/acknowledge.js';
import { EC2_DESCRIBE_ACTIONS, ec2DescribeStatements, ec2MutationStatements, kmsStatements, wildcardReasons } from './constructs/ec2-policy.js';
import { Functions, type FunctionName } from './constructs/functions.js';
import { Monitoring } from './constructs/monitoring.js';
import { Storage } from './constructs/storage.js';
import { grantTableAccess } from './constructs/table-access.js';

/**
 * What an SQS event source mapping needs of its function's role, as Lambda's and SQS's guides list
 * it: receiving, deleting, and reading the queue's attributes. The executor's own code only sends.
 */
const QUEUE_MAPPING_ACTIONS = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'] as const;

export interface EbsProvisionerStackProps extends StackProps, DeploymentOptions {}

export class EbsProvisionerStack extends Stack {
  readonly options: ResolvedOptions;
  /** Where this deployment's functions put their metrics and its alarms read them: its own, so two deployments in an account never hear each other. */
  readonly metricsNamespace: string;
  readonly storage: Storage;
  readonly functions: Functions;
  readonly api: Api;
  readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: EbsProvisionerStackProps = {}) {
    super(scope, id, props);
    const options = resolveOptions(props, this.stackName, Token.isUnresolved(this.region) ? undefined : this.region);
    this.options = options;
    this.metricsNamespace = metricsNamespace(this.stackName);

    const storage = new Storage(this, 'Storage', {
      tableRemovalPolicy: options.tableRemovalPolicy,
      deletionProtection: options.deletionProtection,
    });
    this.storage = storage;
    const { table, queue } = storage;
    const engine = { TABLE_NAME: table.tableName, QUEUE_URL: queue.queueUrl, OWNER_TAG_VALUE: options.ownerTagValue };

    const functions = new Functions(this, 'Functions', {
      logRetentionDays: options.logRetentionDays,
      metricsNamespace: this.metricsNamespace,
      reservedConcurrency: {
        // Caps the executor's EC2 calls even if something else invokes it; equal to the
        // mapping's maximum concurrency so the mapping itself is never throttled.
        executor: options.executorMaxConcurrency,
        // One reconciler pass at a time; its timeout, shorter than the interval, keeps the next
        // scheduled pass from being throttled.
        reconciler: 1,
      },
      environment: {
        // Reads the line too, to tell a client how long its record's next call waits for EC2's tokens.
        // No OWNER_TAG_VALUE: the api never names the owner (the ownership tag keys are constants).
        api: {
          TABLE_NAME: table.tableName,
          RATE_BUDGET_TABLE_NAME: storage.rateBudgetTable.tableName,
          EC2_REFILL_PER_SECOND: String(options.ec2RefillPerSecond),
        },
        watcher: engine,
        executor: {
          ...engine,
          RATE_BUDGET_TABLE_NAME: storage.rateBudgetTable.tableName,
          EC2_REFILL_PER_SECOND: String(options.ec2RefillPerSecond),
          // How many environments share EC2's buckets: each one's own budget is its share of them,
          // and calls deferred for tokens come back spread at the rate all of them may use.
          EXECUTOR_MAX_CONCURRENCY: String(options.executorMaxConcurrency),
          // Only when given: it replaces each EC2 bucket's own budget by one rate.
          ...(options.ec2RateBudget === undefined ? {} : { EC2_RATE_BUDGET: String(options.ec2RateBudget) }),
        },
        // Reads the line of calls waiting for EC2's tokens, so it does not nudge calls that are only waiting their turn.
        reconciler: {
          ...engine,
          RATE_BUDGET_TABLE_NAME: storage.rateBudgetTable.tableName,
          EC2_REFILL_PER_SECOND: String(options.ec2RefillPerSecond),
          // Only when given: the engine's default otherwise.
          ...(options.reconcilerScanSegments === undefined ? {} : { RECONCILER_SCAN_SEGMENTS: String(options.reconcilerScanSegments) }),
        },
      },
    });
    this.functions = functions;
    const { api, watcher, executor, reconciler } = functions;

    // Grants, least needed per function: on the table, the actions of the store methods each calls.
    for (const [name, fn] of Object.entries(functions.all()) as [FunctionName, lambda.IFunction][]) grantTableAccess(table, fn, name);
    storage.rateBudgetTable.grant(api, 'dynamodb:GetItem');
    // On the queue, sending is all their code does (SendMessageBatch is authorized as sqs:SendMessage):
    // grantSendMessages would add GetQueueAttributes and GetQueueUrl, which none of them calls.
    queue.grant(watcher, 'sqs:SendMessage');
    // A take is a consistent GetItem and a conditional PutItem of one bucket's level.
    storage.rateBudgetTable.grant(executor, 'dynamodb:GetItem', 'dynamodb:PutItem');
    queue.grant(executor, 'sqs:SendMessage');
    storage.rateBudgetTable.grant(reconciler, 'dynamodb:GetItem');
    queue.grant(reconciler, 'sqs:SendMessage');
    const executorStatements = [
      ...ec2DescribeStatements('executor'),
      ...ec2MutationStatements(this, options),
      ...(options.kmsKeyArn ? kmsStatements(this, options.kmsKeyArn) : []),
    ];
    for (const statement of executorStatements) executor.addToRolePolicy(statement);
    for (const statement of ec2DescribeStatements('reconciler')) reconciler.addToRolePolicy(statement);
    for (const name of ['executor', 'reconciler'] as const) {
      acknowledgeWildcardResource(roleOf(functions[name]), '*', `Only ${EC2_DESCRIBE_ACTIONS[name].join(', ')}, which EC2 authorizes on * alone (no resource-level permissions).`);
    }
    const reasons = wildcardReasons(options);
    for (const statement of executorStatements) {
      for (const resource of statement.resources.filter((r) => r.includes('*') && r !== '*')) {
        const reason = statement.sid ? reasons[statement.sid] : undefined;
        if (!reason) throw new Error(`EC2 statement ${statement.sid ?? '(no sid)'} has a wildcard resource but no recorded reason`);
        acknowledgeWildcardResource(roleOf(executor), resource, `${statement.sid}: ${reason}`);
      }
    }

    // No filter criteria: every change matters to the watcher. Inserts and spec changes plan
    // work, status changes release attachments waiting on a volume, and removals end them; a
    // filter on one image cannot tell a status change from a no-op write anyway.
    watcher.addEventSource(
      new DynamoEventSource(table, {
        // From the oldest change the stream holds: nothing written before the mapping is enabled
        // is skipped, and replaying changes is harmless (the watcher is idempotent).
        startingPosition: lambda.StartingPosition.TRIM_HORIZON,
        batchSize: WATCHER.batchSize,
        maxBatchingWindow: Duration.seconds(WATCHER.maxBatchingWindowSeconds),
        bisectBatchOnError: WATCHER.bisectBatchOnError,
        reportBatchItemFailures: true,
        retryAttempts: WATCHER.retryAttempts,
        maxRecordAge: Duration.seconds(WATCHER.maxRecordAgeSeconds),
        parallelizationFactor: WATCHER.parallelizationFactor,
        onFailure: sendOnlyDestination(storage.streamFailureQueue),
      }),
    );
    acknowledgeWildcardResource(roleOf(watcher), '*', 'dynamodb:ListStreams, which the stream event source mapping needs, supports no resource-level permissions.');
    // The queue mapping, granted only what Lambda's poller needs of the executor's role to receive
    // and delete its messages (sqs:ReceiveMessage, sqs:DeleteMessage, sqs:GetQueueAttributes):
    // SqsEventSource grants grantConsumeMessages, which adds ChangeMessageVisibility and GetQueueUrl,
    // which neither the poller nor the executor's code calls. The mapping keeps SqsEventSource's id,
    // so a deployed one is updated in place rather than replaced.
    executor.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`, {
      eventSourceArn: queue.queueArn,
      batchSize: EXECUTOR.batchSize,
      maxBatchingWindow: Duration.seconds(EXECUTOR.maxBatchingWindowSeconds),
      reportBatchItemFailures: true,
      maxConcurrency: options.executorMaxConcurrency,
    });
    queue.grant(executor, ...QUEUE_MAPPING_ACTIONS);

    // A missed pass is harmless: the next one comes within the interval. So neither EventBridge
    // nor Lambda's asynchronous invocation retries one (Lambda would by default, twice after an
    // error and for up to six hours after throttling), and a pass not started within an interval
    // is dropped.
    new events.Rule(this, 'ReconcilerSchedule', {
      description: `Runs the reconciler every ${RECONCILER.intervalMinutes} minutes`,
      schedule: events.Schedule.rate(Duration.minutes(RECONCILER.intervalMinutes)),
      targets: [new targets.LambdaFunction(reconciler, { retryAttempts: 0 })],
    });
    reconciler.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(RECONCILER.intervalMinutes) });

    this.api = new Api(this, 'Api', { handler: api, authorization: options.apiAuthorization, logRetentionDays: options.logRetentionDays });
    this.monitoring = new Monitoring(this, 'Monitoring', {
      alarmEmail: options.alarmEmail,
      metricsNamespace: this.metricsNamespace,
      functions: functions.all(),
      executorMaxConcurrency: options.executorMaxConcurrency,
      queue,
      deadLetterQueue: storage.deadLetterQueue,
      streamFailureQueue: storage.streamFailureQueue,
      restApi: this.api.restApi,
    });


    new CfnOutput(this, 'ApiUrl', {
      value: this.api.restApi.url,
      description: options.apiAuthorization === 'iam' ? 'Base URL of the API (SigV4-signed requests)' : 'Base URL of the API (no authorization: anyone with the URL can call it)',
    });
    new CfnOutput(this, 'TableName', { value: table.tableName, description: 'The record table' });
    new CfnOutput(this, 'QueueUrl', { value: queue.queueUrl, description: 'The operation queue' });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: storage.deadLetterQueue.queueUrl, description: 'Operation messages that failed every delivery' });
    // The redrive (`aws sqs start-message-move-task --source-arn`) names the queue by its ARN.
    new CfnOutput(this, 'DeadLetterQueueArn', { value: storage.deadLetterQueue.queueArn, description: 'The dead-letter queue, as a redrive names it' });
    new CfnOutput(this, 'StreamFailureQueueUrl', { value: storage.streamFailureQueue.queueUrl, description: 'Stream batches the watcher gave up on' });
    new CfnOutput(this, 'AlarmTopicArn', { value: this.monitoring.topic.topicArn, description: 'Where alarms are sent' });
    new CfnOutput(this, 'DashboardName', { value: this.monitoring.dashboard.dashboardName });
    new CfnOutput(this, 'MetricsNamespace', { value: this.metricsNamespace, description: 'CloudWatch namespace of this deployment\'s metrics' });
  }
}

/** The role of a function created with an explicit role (as all of this stack's are). */
function roleOf(fn: lambda.IFunction): iam.IRole {
  if (!fn.role) throw new Error(`${fn.node.path} has no role`);
  return fn.role;
}

/**
 * A queue as the failure destination of an event source mapping, to which Lambda only sends
 * (sqs:SendMessage, all an SQS destination needs); SqsDlq would also grant GetQueueAttributes and GetQueueUrl.
 */
function sendOnlyDestination(queue: sqs.IQueue): lambda.IEventSourceDlq {
  return {
    bind: (_target, targetHandler) => {
      queue.grant(targetHandler, 'sqs:SendMessage');
      return { destination: queue.queueArn };
    },
  };
}
