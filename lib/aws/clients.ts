/**
 * The AWS SDK clients every function and the local runtime use, configured in one place: created
 * once per process (module scope in a Lambda handler) and injected into the adapters.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { EC2Client } from '@aws-sdk/client-ec2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StandardRetryStrategy } from '@smithy/core/retry';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { ITEM_MARSHALL_OPTIONS, ITEM_UNMARSHALL_OPTIONS } from './record-item.js';

export interface AwsClientOptions {
  /** Service endpoint for all clients (moto, LocalStack); defaults to `AWS_ENDPOINT_URL`, else AWS. */
  endpoint?: string;
  /** Defaults to the SDK's own resolution (`AWS_REGION`, profile). */
  region?: string;
  /** Upper bound of one HTTP attempt, connection included. Default 5 s. */
  requestTimeoutMs?: number;
  /**
   * Fixed credentials for all clients (an emulator's dummy ones); the environment, profiles and
   * instance metadata are then never consulted. Defaults to the SDK's own resolution.
   */
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

export interface AwsClients {
  dynamo: DynamoDBClient;
  /** Document client over `dynamo`: plain JavaScript values in and out (numbers as ITEM_UNMARSHALL_OPTIONS reads them), `undefined` attributes dropped. */
  doc: DynamoDBDocumentClient;
  streams: DynamoDBStreamsClient;
  sqs: SQSClient;
  /** For the describes: the standard retry strategy, throttling included. */
  ec2: EC2Client;
  /** For the mutating EC2 calls, which take a token from the shared rate budget: the SDK leaves their throttling to the engine. */
  ec2Metered: EC2Client;
}

const DEFAULT_REQUEST_TIMEOUT_MS = 5_000;
const CONNECTION_TIMEOUT_MS = 1_000;
/** The SDK's standard retry mode: exponential backoff with jitter and a client-side retry quota. */
const MAX_ATTEMPTS = 3;

/**
 * The standard retry strategy, except that EC2's throttling (`RequestLimitExceeded`, or whatever
 * else the SDK calls throttling: another code of its list, a 429) is never retried by the SDK:
 * each mutating call takes a token from EC2's request buckets in the shared rate budget before it
 * is sent, and a retry from inside the SDK would be sent without one. ec2-errors.ts classes the
 * same errors as throttled, by the same test. The engine retries a throttled call itself, after its
 * own delay and without spending an attempt, and learns from each throttle that the account's
 * buckets are short. Describes, which take no token, keep the SDK's retries.
 *
 * @example
 * new EC2Client({ retryStrategy: new ThrottlingLeftToCallerRetryStrategy(3) });
 */
export class ThrottlingLeftToCallerRetryStrategy {
  private readonly standard: StandardRetryStrategy;

  constructor(maxAttempts: number) {
    this.standard = new StandardRetryStrategy(maxAttempts);
  }

  acquireInitialRetryToken(...args: Parameters<StandardRetryStrategy['acquireInitialRetryToken']>): ReturnType<StandardRetryStrategy['acquireInitialRetryToken']> {
    return this.standard.acquireInitialRetryToken(...args);
  }

  refreshRetryTokenForRetry(...args: Parameters<StandardRetryStrategy['refreshRetryTokenForRetry']>): ReturnType<StandardRetryStrategy['refreshRetryTokenForRetry']> {
    // Refusing the token makes the SDK throw the throttling error itself.
    if (args[1].errorType === 'THROTTLING') return Promise.reject(new Error('throttling is retried by the caller'));
    return this.standard.refreshRetryTokenForRetry(...args);
  }

  recordSuccess(...args: Parameters<StandardRetryStrategy['recordSuccess']>): void {
    this.standard.recordSuccess(...args);
  }
}

/** Creates all clients with the same endpoint, region, credentials, retry strategy (EC2's throttling of mutating calls aside) and timeouts. */
export function createAwsClients(options: AwsClientOptions = {}): AwsClients {
  const endpoint = options.endpoint ?? (process.env.AWS_ENDPOINT_URL || undefined);
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const config = () => ({
    ...(endpoint === undefined ? {} : { endpoint }),
    ...(options.region === undefined ? {} : { region: options.region }),
    ...(options.credentials === undefined ? {} : { credentials: { ...options.credentials } }),
    retryMode: 'standard',
    maxAttempts: MAX_ATTEMPTS,
    // One handler per client: each keeps its own connection pool.
    requestHandler: new NodeHttpHandler({
      connectionTimeout: Math.min(CONNECTION_TIMEOUT_MS, requestTimeout),
      requestTimeout,
      throwOnRequestTimeout: true,
    }),
  });
  const dynamo = new DynamoDBClient(config());
  return {
    dynamo,
    doc: DynamoDBDocumentClient.from(dynamo, {
      // Copies: the document client sets options of its own on the objects it is given.
      marshallOptions: { ...ITEM_MARSHALL_OPTIONS },
      unmarshallOptions: { ...ITEM_UNMARSHALL_OPTIONS },
    }),
    streams: new DynamoDBStreamsClient(config()),
    sqs: new SQSClient(config()),
    ec2: new EC2Client(config()),
    ec2Metered: new EC2Client({ ...config(), retryStrategy: new ThrottlingLeftToCallerRetryStrategy(MAX_ATTEMPTS) }),
  };
}
