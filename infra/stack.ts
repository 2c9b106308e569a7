import { Annotations, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { API, EXECUTOR, METRICS, RECONCILER, WATCHER } from '../lib/settings.js';
import { ProvisionerApi, type ApiAuthorization } from './constructs/api.js';
import { ebsKmsStatements, ec2ResourcesArn, ec2DescribeStatement, ec2MutationStatements } from './constructs/ec2-policy.js';
import { ProvisionerFunction } from './constructs/functions.js';
import { Monitoring } from './constructs/monitoring.js';
import { Storage } from './constructs/storage.js';

/** Mutating EC2 calls per second the executor allows itself when not configured. */
export const DEFAULT_EC2_RATE_BUDGET = 5;

export interface EbsProvisionerStackProps extends StackProps {
  /** Value of the ownership tag on every volume this deployment creates; IAM scopes EC2 mutations to it. Default: the stack name. */
  readonly ownerTagValue?: string;
  /** Email address subscribed to the alarm topic. */
  readonly alarmEmail?: string;
  /** 'iam' (SigV4, default) or 'none'. */
  readonly apiAuthorization?: ApiAuthorization;
  /** Concurrent executor invocations (event source maximum concurrency). Default EXECUTOR.maxConcurrency. */
  readonly executorMaxConcurrency?: number;
  /** Mutating EC2 calls per second per executor invocation. */
  readonly ec2RateBudget?: number;
  readonly logRetentionDays?: logs.RetentionDays;
  /** 'retain' (default) or 'destroy' for the table. */
  readonly tableRemovalPolicy?: 'retain' | 'destroy';
  /** DynamoDB deletion protection on the table. Default true. */
  readonly deletionProtection?: boolean;
  /** Customer KMS key for the table and for encrypted volumes; KMS permissions exist only when set. */
  readonly kmsKeyArn?: string;
}

/** The whole provisioner: table, queues, the four functions and their triggers, the API, alarms and dashboard. */
export class EbsProvisionerStack extends Stack {
  constructor(scope: Construct, id: string, props: EbsProvisionerStackProps = {}) {
    super(scope, id, props);
    const ownerTagValue = props.ownerTagValue ?? this.stackName;
    const executorMaxConcurrency = props.executorMaxConcurrency ?? EXECUTOR.maxConcurrency;
    const ec2RateBudget = props.ec2RateBudget ?? DEFAULT_EC2_RATE_BUDGET;
    const logRetention = props.logRetentionDays ?? logs.RetentionDays.ONE_MONTH;
    const authorization = props.apiAuthorization ?? 'iam';
    if (authorization === 'none') {
      Annotations.of(this).addWarningV2('ebs-provisioner:api-open',
        'apiAuthorization=none: anyone who can reach the API can create, attach and delete volumes.');
    }
    const encryptionKey = props.kmsKeyArn ? kms.Key.fromKeyArn(this, 'Key', props.kmsKeyArn) : undefined;

    const storage = new Storage(this, 'Storage', {
      removalPolicy: props.tableRemovalPolicy === 'destroy' ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      deletionProtection: props.deletionProtection ?? true,
      encryptionKey,
    });
    const { table, queue } = storage;

    const environment: Record<string, string> = {
      TABLE_NAME: table.tableName,
      QUEUE_URL: queue.queueUrl,
      OWNER_TAG_VALUE: ownerTagValue,
      POWERTOOLS_METRICS_NAMESPACE: METRICS.namespace,
      LOG_LEVEL: 'INFO',
      EC2_RATE_BUDGET: String(ec2RateBudget),
      ...(props.kmsKeyArn ? { KMS_KEY_ARN: props.kmsKeyArn } : {}),
    };
    const make = (entryName: 'api' | 'watcher' | 'executor' | 'reconciler', settings: { timeoutSeconds: number; memoryMiB: number },
      reservedConcurrentExecutions?: number) =>
      new ProvisionerFunction(this, entryName[0]!.toUpperCase() + entryName.slice(1), {
        entryName,
        timeoutSeconds: settings.timeoutSeconds,
        memoryMiB: settings.memoryMiB,
        logRetention,
        reservedConcurrentExecutions,
        environment: { ...environment, POWERTOOLS_SERVICE_NAME: `ebs-provisioner-${entryName}` },
      });
    const api = make('api', API);
    const watcher = make('watcher', WATCHER);
    const executor = make('executor', EXECUTOR);
    // One reconciler at a time: overlapping sweeps would double EC2 Describe load and race on repairs.
    const reconciler = make('reconciler', RECONCILER, 1);

    table.grantReadWriteData(api.fn);
    table.grantReadWriteData(watcher.fn);
    queue.grantSendMessages(watcher.fn);
    table.grantReadWriteData(executor.fn);
    queue.grantSendMessages(executor.fn);
    table.grantReadWriteData(reconciler.fn);
    queue.grantSendMessages(reconciler.fn);
    for (const statement of ec2MutationStatements(this, ownerTagValue)) executor.role.addToPolicy(statement);
    executor.role.addToPolicy(ec2DescribeStatement());
    reconciler.role.addToPolicy(ec2DescribeStatement());
    const indexes = `${table.tableArn}/index/*`;
    for (const fn of [api, watcher, executor, reconciler]) {
      fn.acknowledgeWildcard(indexes, 'Read/write on this table grants its indexes too; `index/*` covers only this table\'s indexes.');
    }
    watcher.acknowledgeWildcard('*', 'dynamodb:ListStreams, added by the stream event source, supports no resource-level permissions.');
    for (const fn of [executor, reconciler]) {
      fn.acknowledgeWildcard('*', 'EC2 Describe* actions support no resource-level permissions; they read metadata only.');
    }
    const ec2Arn = (resource: string, account?: string) => ec2ResourcesArn(this, resource, account);
    executor.acknowledgeWildcard(ec2Arn('volume'), 'Volume IDs are unknown before creation; every statement on volume/* carries the ownership tag condition.');
    executor.acknowledgeWildcard(ec2Arn('instance'), 'Attach/Detach target any instance the user names; the volume side is restricted by the ownership tag.');
    executor.acknowledgeWildcard(ec2Arn('snapshot', ''), 'Any snapshot the account can read may seed a volume; the created volume is still bound by the ownership tag condition.');
    if (props.kmsKeyArn) for (const statement of ebsKmsStatements(this, props.kmsKeyArn)) executor.role.addToPolicy(statement);

    // No filter criteria on the stream: every change can matter to the watcher. Status writes by the
    // executor release waiting work (an attachment waits for its volume to become available; a dying
    // volume waits for its attachments to go), and REMOVE events release deletes. Filtering out
    // "system-only" modifications would strand exactly those records until the next reconciler sweep.
    watcher.fn.addEventSource(new DynamoEventSource(table, {
      startingPosition: lambda.StartingPosition.TRIM_HORIZON,
      batchSize: WATCHER.batchSize,
      maxBatchingWindow: Duration.seconds(WATCHER.maxBatchingWindowSeconds),
      bisectBatchOnError: WATCHER.bisectBatchOnError,
      retryAttempts: WATCHER.retryAttempts,
      maxRecordAge: Duration.seconds(WATCHER.maxRecordAgeSeconds),
      parallelizationFactor: WATCHER.parallelizationFactor,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(storage.streamFailureQueue),
    }));
    executor.fn.addEventSource(new SqsEventSource(queue, {
      batchSize: EXECUTOR.batchSize,
      maxBatchingWindow: Duration.seconds(EXECUTOR.maxBatchingWindowSeconds),
      reportBatchItemFailures: true,
      maxConcurrency: executorMaxConcurrency,
    }));

    new events.Rule(this, 'ReconcilerSchedule', {
      schedule: events.Schedule.rate(Duration.minutes(RECONCILER.intervalMinutes)),
      targets: [new targets.LambdaFunction(reconciler.fn, { retryAttempts: 0 })],
    });

    const restApi = new ProvisionerApi(this, 'HttpApi', { handler: api.fn, authorization, logRetention });

    new Monitoring(this, 'Monitoring', {
      alarmEmail: props.alarmEmail,
      functions: { Api: api.fn, Watcher: watcher.fn, Executor: executor.fn, Reconciler: reconciler.fn },
      watcher: watcher.fn,
      queue,
      deadLetterQueue: storage.deadLetterQueue,
      streamFailureQueue: storage.streamFailureQueue,
      api: restApi.api,
    });
  }
}
