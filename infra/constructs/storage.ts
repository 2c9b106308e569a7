import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUE, TABLE } from '../../lib/settings.js';

export interface StorageProps {
  readonly removalPolicy: RemovalPolicy;
  readonly deletionProtection: boolean;
  /** Customer key for the table; AWS managed encryption when absent. */
  readonly encryptionKey?: kms.IKey;
}

/** The record table (with its stream and instance index), the operation queue and the dead-letter queues. */
export class Storage extends Construct {
  readonly table: dynamodb.Table;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  /** Receives the metadata of stream batches the watcher could not process before they expired. */
  readonly streamFailureQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: StorageProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType[TABLE.streamView],
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: props.encryptionKey ? dynamodb.TableEncryption.CUSTOMER_MANAGED : dynamodb.TableEncryption.AWS_MANAGED,
      encryptionKey: props.encryptionKey,
      deletionProtection: props.deletionProtection,
      removalPolicy: props.removalPolicy,
    });
    this.table.addGlobalSecondaryIndex({
      indexName: TABLE.instanceIndex.name,
      partitionKey: { name: TABLE.instanceIndex.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TABLE.instanceIndex.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });

    const retentionPeriod = Duration.days(QUEUE.retentionDays);
    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod,
    });
    this.queue = new sqs.Queue(this, 'OperationQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod,
      visibilityTimeout: Duration.seconds(QUEUE.visibilityTimeoutSeconds),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: QUEUE.maxReceiveCount },
    });
    this.streamFailureQueue = new sqs.Queue(this, 'StreamFailureQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod,
    });
    for (const deadEnd of [this.deadLetterQueue, this.streamFailureQueue]) {
      Validations.of(deadEnd).acknowledge({
        id: 'AwsSolutions-SQS3',
        reason: 'This queue is itself a dead-letter destination; its messages are inspected by a person, alarmed on, never re-driven automatically.',
      });
    }
  }
}
