/**
 * The record table (with its stream), the shared rate budget's table, and the operation queue
 * with its dead-letter queue, all defined from lib/settings.ts, the module the local runtime and
 * the tests create them from.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE, RATE_BUDGET_TABLE, TABLE } from '../../lib/settings.js';
import type { TableRemovalPolicy } from '../config.js';

export interface StorageProps {
  tableRemovalPolicy: TableRemovalPolicy;
  deletionProtection: boolean;
}

export class Storage extends Construct {
  /** Records of volumes and attachments; its stream drives the watcher. */
  readonly table: dynamodb.Table;
  /** The executor's shared EC2 rate budget: a token level per EC2 request bucket, nothing else. */
  readonly rateBudgetTable: dynamodb.Table;
  /** Operation messages for the executor; delayed messages are the retry schedule. */
  readonly queue: sqs.Queue;
  /** Operation messages that failed QUEUE.maxReceiveCount times. */
  readonly deadLetterQueue: sqs.Queue;
  /** Descriptions of stream batches the watcher could not process within its retries. */
  readonly streamFailureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: StorageProps) {
    super(scope, id);
    const index = TABLE.instanceIndex;
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType[TABLE.streamView],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.tableRemovalPolicy === 'retain' ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    // Holds only token levels that are rebuilt on the first take, so it goes with the stack.
    this.rateBudgetTable = new dynamodb.Table(this, 'RateBudgetTable', {
      partitionKey: { name: RATE_BUDGET_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: dynamodb.TableEncryption.AWS_MANAGED,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const deadLetterRetentionPeriod = Duration.days(QUEUE.deadLetterRetentionDays);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: deadLetterRetentionPeriod,
    });
    this.queue = new sqs.Queue(this, 'OperationQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: Duration.seconds(QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(QUEUE.retentionDays),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: QUEUE.maxReceiveCount },
    });
    this.streamFailureQueue = new sqs.Queue(this, 'StreamFailureQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: deadLetterRetentionPeriod,
    });
    Validations.of(this.streamFailureQueue).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself the failure destination of the stream mapping: it receives batch descriptions that nothing consumes automatically, so it has no dead-letter queue of its own; an alarm fires on its first message.',
    });
  }
}
