/**
 * All AWS adapters of the engine's ports, wired from one set of clients: what a Lambda handler
 * (at module scope, once per container) and the local runtime's moto backend build.
 */
import { createAwsClients, type AwsClientOptions, type AwsClients } from './clients.js';
import { DynamoRateBudget } from './dynamodb-rate-budget.js';
import { DynamoRecordStore } from './dynamodb-store.js';
import { Ec2VolumeProvider } from './ec2-provider.js';
import { EmfMetrics } from './metrics.js';
import { SqsOperationQueue } from './sqs-queue.js';

export interface AwsAdapterOptions {
  tableName: string;
  queueUrl: string;
  /** The shared EC2 rate budget's table; without it each executor environment spends its own share. */
  rateBudgetTableName?: string;
  /** Value of the owner tag on every volume this deployment creates (the stack name). */
  ownerTagValue: string;
  /** Existing clients; otherwise created from `clientOptions`. */
  clients?: AwsClients;
  clientOptions?: AwsClientOptions;
  /** CloudWatch namespace of the metrics: the deployment's own (`metricsNamespace` in lib/settings.ts). */
  metricsNamespace: string;
}

export interface AwsAdapters {
  clients: AwsClients;
  store: DynamoRecordStore;
  queue: SqsOperationQueue;
  rateBudget?: DynamoRateBudget;
  provider: Ec2VolumeProvider;
  metrics: EmfMetrics;
}

export function createAwsAdapters(options: AwsAdapterOptions): AwsAdapters {
  const clients = options.clients ?? createAwsClients(options.clientOptions);
  return {
    clients,
    store: new DynamoRecordStore({ client: clients.doc, tableName: options.tableName }),
    queue: new SqsOperationQueue({ client: clients.sqs, queueUrl: options.queueUrl }),
    ...(options.rateBudgetTableName ? { rateBudget: new DynamoRateBudget({ client: clients.doc, tableName: options.rateBudgetTableName }) } : {}),
    provider: new Ec2VolumeProvider({ client: clients.ec2, meteredClient: clients.ec2Metered, ownerTagValue: options.ownerTagValue }),
    metrics: new EmfMetrics({ namespace: options.metricsNamespace }),
  };
}
