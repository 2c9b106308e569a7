/**
 * The local runtime's AWS backend: the real adapters over the real wire protocols, against
 * moto_server (started here on a free loopback port) or any endpoint given, e.g. LocalStack.
 * The table and queues are created from the same definitions the deployed stack uses.
 */
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type _Record as StreamsRecord } from '@aws-sdk/client-dynamodb-streams';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeImagesCommand, RunInstancesCommand, TerminateInstancesCommand } from '@aws-sdk/client-ec2';
import { DeleteMessageBatchCommand, DeleteQueueCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { createAwsAdapters, type AwsAdapters } from '../aws/adapters.js';
import { createAwsClients, type AwsClients } from '../aws/clients.js';
import { ensureQueues, ensureRateBudgetTable, ensureTable } from '../aws/table.js';
import { metricsNamespace } from '../settings.js';
import { startMoto, type MotoServer } from './moto.js';
import { queueRecord } from './event-records.js';
import type { QueueSource } from './queue-poller.js';
import type { StreamSource } from './stream-poller.js';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_AVAILABILITY_ZONE = 'us-east-1a';

export interface MotoBackend {
  endpoint: string;
  adapters: AwsAdapters;
  clients: AwsClients;
  tableName: string;
  /** The shared EC2 rate budget's table. */
  rateBudgetTableName: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
  stream: StreamSource;
  messages: QueueSource;
  launchInstances(count: number): Promise<string[]>;
  /**
   * Deletes from the endpoint what this backend made there: its two tables and two queues, and
   * terminates the instances it launched. Each is tried even when another fails; the failures are
   * then thrown together, naming each resource left. Does not stop the clients (`stop` does).
   */
  deleteCreated(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Emulators accept any credentials; the SDK still wants some. These fixed dummy ones are given to
 * every client, so the environment's credentials and AWS_PROFILE (which might name an SSO or
 * assume-role profile that calls AWS) are never consulted.
 */
export const LOCAL_CREDENTIALS = { accessKeyId: 'testing', secretAccessKey: 'testing' } as const;

/**
 * An emulator's first request to each service loads that service's models: seconds on a slow or
 * busy machine, past the deployed functions' 5 s. One that does not answer at all refuses the
 * connection at once, so a longer bound costs nothing there.
 */
export const LOCAL_REQUEST_TIMEOUT_MS = 20_000;

export async function createMotoBackend(options: {
  endpoint?: string;
  ownerTagValue: string;
  tableName?: string;
  queueName?: string;
}): Promise<MotoBackend> {
  let moto: MotoServer | undefined;
  const endpoint = options.endpoint ?? (moto = await startMoto({ ownProcessGroup: true })).endpoint;
  let created: AwsClients | undefined;
  try {
    const clients = (created = createAwsClients({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, requestTimeoutMs: LOCAL_REQUEST_TIMEOUT_MS }));
    const tableName = options.tableName ?? 'ebs-provisioner-local';
    const queueName = options.queueName ?? 'ebs-provisioner-operations';
    const rateBudgetTableName = `${tableName}-rate-budget`;
    const table = await ensureTable(clients.dynamo, tableName);
    await ensureRateBudgetTable(clients.dynamo, rateBudgetTableName);
    const queues = await ensureQueues(clients.sqs, { queueName, deadLetterQueueName: `${queueName}-dlq` });
    const launched: string[] = [];
    const adapters = createAwsAdapters({
      tableName,
      queueUrl: queues.queueUrl,
      rateBudgetTableName,
      ownerTagValue: options.ownerTagValue,
      metricsNamespace: metricsNamespace(options.ownerTagValue),
      clients,
    });
    return {
      endpoint,
      adapters,
      clients,
      tableName,
      rateBudgetTableName,
      queueUrl: queues.queueUrl,
      deadLetterQueueUrl: queues.deadLetterQueueUrl,
      stream: dynamoStreamSource(clients, table.streamArn),
      messages: sqsQueueSource(clients, queues.queueUrl),
      launchInstances: async (count) => {
        const ids = await launchInstances(clients, count);
        launched.push(...ids);
        return ids;
      },
      deleteCreated: () =>
        deleteAll([
          [`table ${tableName}`, () => clients.dynamo.send(new DeleteTableCommand({ TableName: tableName }))],
          [`table ${rateBudgetTableName}`, () => clients.dynamo.send(new DeleteTableCommand({ TableName: rateBudgetTableName }))],
          [`queue ${queues.queueUrl}`, () => clients.sqs.send(new DeleteQueueCommand({ QueueUrl: queues.queueUrl }))],
          [`queue ${queues.deadLetterQueueUrl}`, () => clients.sqs.send(new DeleteQueueCommand({ QueueUrl: queues.deadLetterQueueUrl }))],
          ...(launched.length > 0
            ? [[`instances ${launched.join(', ')}`, () => clients.ec2.send(new TerminateInstancesCommand({ InstanceIds: [...launched] }))] as const]
            : []),
        ]),
      stop: async () => {
        for (const client of Object.values(clients)) client.destroy();
        await moto?.stop();
      },
    };
  } catch (error) {
    // Their connections to the endpoint, kept open for the next request, would outlive the failed start.
    for (const client of Object.values(created ?? {})) client.destroy();
    await moto?.stop();
    throw error;
  }
}

/**
 * Reads every shard of the table's stream from its start, in order, as Lambda's poller does: a
 * shard whose parent is listed is read once the parent is closed and read to its end (DescribeStream
 * lists shards in no particular order, and a split leaves the parent's last records after the
 * children's first). An iterator that expired (15 minutes after it was issued: unused that long
 * while the machine slept) is replaced by one after the last record read, or at the oldest record
 * left when those after it were trimmed: the same error on every read stalled the watcher.
 */
export function dynamoStreamSource(clients: Pick<AwsClients, 'streams'>, streamArn: string): StreamSource {
  /** `done`: closed and read to its end (GetRecords gave no next iterator). */
  const shards = new Map<string, { parentShardId?: string; iterator?: string; lastSequenceNumber?: string; done: boolean }>();
  /** Records read from one shard before another's read failed: returned first by the next read. */
  const unreturned: DynamoDBRecord[] = [];
  const iterator = async (shardId: string, afterSequenceNumber?: string) =>
    (
      await clients.streams.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ...(afterSequenceNumber ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: afterSequenceNumber } : { ShardIteratorType: 'TRIM_HORIZON' }),
        }),
      )
    ).ShardIterator;
  /**
   * An iterator after `afterSequenceNumber`, or at the shard's oldest record once that one has been
   * trimmed (24 hours after it was written): the same refusal on every read stalled the watcher.
   */
  const resume = async (shardId: string, afterSequenceNumber?: string) => {
    try {
      return await iterator(shardId, afterSequenceNumber);
    } catch (error) {
      if ((error as { name?: unknown }).name !== 'TrimmedDataAccessException') throw error;
      return iterator(shardId);
    }
  };
  /** Whether the shard's parent, when listed, is done: its records all come before the shard's. */
  const parentDone = (shard: { parentShardId?: string }) => {
    const parent = shard.parentShardId === undefined ? undefined : shards.get(shard.parentShardId);
    return parent === undefined || parent.done;
  };
  return {
    async read() {
      // DescribeStream lists at most 100 shards a call; the rest follow LastEvaluatedShardId.
      const listed = new Set<string>();
      let after: string | undefined;
      do {
        const { StreamDescription } = await clients.streams
          .send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: after }))
          .catch((error: unknown) => {
            throw lostWithEmulatorState(error, `the table's stream ${streamArn}`);
          });
        for (const shard of StreamDescription?.Shards ?? []) {
          if (!shard.ShardId) continue;
          listed.add(shard.ShardId);
          if (shards.has(shard.ShardId)) continue;
          shards.set(shard.ShardId, { ...(shard.ParentShardId ? { parentShardId: shard.ParentShardId } : {}), done: false });
        }
        after = StreamDescription?.LastEvaluatedShardId;
      } while (after);
      // A shard no longer listed is gone with its records (trimmed, 24 hours after they were
      // written): it can neither be read nor hold back its children any more.
      for (const shardId of shards.keys()) if (!listed.has(shardId)) shards.delete(shardId);
      const records = unreturned.splice(0);
      try {
        for (const [shardId, shard] of shards) {
          if (shard.done || !parentDone(shard)) continue;
          // First read of the shard (its parent just finished, or it has none listed): from its start.
          shard.iterator ??= await iterator(shardId);
          if (!shard.iterator) continue;
          let response;
          try {
            response = await clients.streams.send(new GetRecordsCommand({ ShardIterator: shard.iterator, Limit: 1000 }));
          } catch (error) {
            const name = (error as { name?: unknown }).name;
            if (name === 'ExpiredIteratorException') shard.iterator = await resume(shardId, shard.lastSequenceNumber);
            // The records after the iterator were trimmed (older than 24 hours): the oldest left come next.
            else if (name === 'TrimmedDataAccessException') shard.iterator = await iterator(shardId);
            else throw error;
            continue;
          }
          shard.iterator = response.NextShardIterator;
          if (!shard.iterator) shard.done = true;
          for (const record of response.Records ?? []) {
            if (record.dynamodb?.SequenceNumber) shard.lastSequenceNumber = record.dynamodb.SequenceNumber;
            records.push(asLambdaStreamRecord(record, streamArn));
          }
        }
      } catch (error) {
        // The shards read before the failure have moved past their records: keep them for the next read.
        unreturned.push(...records);
        throw error;
      }
      return records;
    },
  };
}

/**
 * A record as the DynamoDB Streams SDK returns it, in the shape Lambda hands the function:
 * the creation time in epoch seconds rather than a Date, and the stream's ARN as event source.
 */
function asLambdaStreamRecord(record: StreamsRecord, streamArn: string): DynamoDBRecord {
  const { ApproximateCreationDateTime: created, ...dynamodb } = record.dynamodb ?? {};
  return {
    ...(record as DynamoDBRecord),
    eventSourceARN: streamArn,
    dynamodb: {
      ...(dynamodb as NonNullable<DynamoDBRecord['dynamodb']>),
      ...(created ? { ApproximateCreationDateTime: Math.floor(created.getTime() / 1000) } : {}),
    },
  };
}

/** The names of the errors with which an endpoint answers for a table, stream or queue it does not hold. */
const NOT_HELD = new Set(['ResourceNotFoundException', 'QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue']);

/**
 * `error`, or when it says the endpoint does not hold `what` (an emulator restarted without the
 * state it kept in memory lost the table and queues the runtime created at its start), an error
 * saying so and what to do: the bare "Requested resource not found" of each failed read said neither.
 */
export function lostWithEmulatorState(error: unknown, what: string): unknown {
  const name = typeof error === 'object' && error !== null ? (error as { name?: unknown }).name : undefined;
  if (typeof name !== 'string' || !NOT_HELD.has(name)) return error;
  return new Error(
    `${what} is not at the endpoint (${name}: ${(error as { message?: unknown }).message}); an emulator restarted without its state has lost it: restart the runtime to create it again`,
  );
}

export function sqsQueueSource(clients: Pick<AwsClients, 'sqs'>, queueUrl: string): QueueSource {
  return {
    async receive(max) {
      const { Messages } = await clients.sqs
        .send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: Math.max(1, Math.min(10, max)), MessageSystemAttributeNames: ['All'] }))
        .catch((error: unknown) => {
          throw lostWithEmulatorState(error, `the operation queue ${queueUrl}`);
        });
      return (Messages ?? []).map((m) =>
        queueRecord({
          messageId: m.MessageId!,
          receiptHandle: m.ReceiptHandle!,
          receiveCount: Number(m.Attributes?.ApproximateReceiveCount ?? 1),
          sentAt: Number(m.Attributes?.SentTimestamp ?? Date.now()),
          body: m.Body ?? '',
        }),
      );
    },
    async delete(records: SQSRecord[]) {
      for (let i = 0; i < records.length; i += 10) {
        const chunk = records.slice(i, i + 10);
        await clients.sqs.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((r, index) => ({ Id: String(index), ReceiptHandle: r.receiptHandle })),
          }),
        );
      }
    },
  };
}

/** Runs every deletion, then throws one error naming each resource whose deletion failed. */
async function deleteAll(deletions: ReadonlyArray<readonly [what: string, run: () => Promise<unknown>]>): Promise<void> {
  const failures: Array<{ what: string; error: unknown }> = [];
  for (const [what, run] of deletions) {
    try {
      await run();
    } catch (error) {
      failures.push({ what, error });
    }
  }
  if (failures.length === 0) return;
  const reasons = failures.map(({ what, error }) => `${what} (${error instanceof Error ? error.message : String(error)})`);
  throw new AggregateError(
    failures.map((f) => f.error),
    `could not delete ${reasons.join('; ')}`,
  );
}

/** Demo instances in the emulator, in the local availability zone. */
async function launchInstances(clients: AwsClients, count: number): Promise<string[]> {
  if (count <= 0) return [];
  const { Images } = await clients.ec2.send(new DescribeImagesCommand({}));
  const imageId = Images?.find((image) => image.ImageId)?.ImageId;
  if (!imageId) throw new Error('the EC2 endpoint offers no image to launch demo instances from');
  const { Instances } = await clients.ec2.send(
    new RunInstancesCommand({
      ImageId: imageId,
      InstanceType: 't3.micro',
      MinCount: count,
      MaxCount: count,
      Placement: { AvailabilityZone: LOCAL_AVAILABILITY_ZONE },
    }),
  );
  return (Instances ?? []).flatMap((i) => (i.InstanceId ? [i.InstanceId] : []));
}
