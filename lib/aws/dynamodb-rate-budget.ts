/**
 * SharedRateBudget on DynamoDB: one item per EC2 request bucket in a small table of its own (no
 * stream, so taking tokens wakes no watcher). A take reads the bucket's level (strongly
 * consistent), grants from it (`grantTokens`) and stores the new level on the condition that no
 * other environment stored one since; losing that race means reading again. Reading the line
 * (`waitMs`) is one eventually consistent GetItem: the reconciler's estimate, not a grant.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RateBucket, RateBudget } from '../engine/config.js';
import type { SharedRateBudget, TokensTaken } from '../engine/ports.js';
import { grantTokens, tokenWaitMs, type SharedBucketLevel } from '../engine/rate-limiter.js';
import { RATE_BUDGET_TABLE } from '../settings.js';

const KEY = RATE_BUDGET_TABLE.partitionKey;

export interface DynamoRateBudgetOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  /** Reads and conditional writes per take before giving up to contention. Default 5. */
  maxAttempts?: number;
  /** Longest pause before the second attempt, doubled for each later one, with full jitter. Default 20 ms. */
  baseDelayMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  /** Jitter source, [0, 1). */
  random?: () => number;
}

/** Thrown when other environments kept storing the bucket's level between this take's read and write. */
export class RateBudgetContentionError extends Error {
  override readonly name = 'RateBudgetContentionError';
  constructor(bucket: string, attempts: number) {
    super(`rate budget ${bucket}: the level changed under each of ${attempts} attempts`);
  }
}

interface LevelItem {
  [KEY]: string;
  tokens: number;
  updatedAt: number;
  version: number;
}

export class DynamoRateBudget implements SharedRateBudget {
  private readonly maxAttempts: number;
  private readonly baseDelayMs: number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly options: DynamoRateBudgetOptions) {
    this.maxAttempts = options.maxAttempts ?? 5;
    this.baseDelayMs = options.baseDelayMs ?? 20;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = options.random ?? Math.random;
  }

  async take(bucket: RateBucket, count: number, budget: RateBudget, now: number, maxWaitMs: number): Promise<TokensTaken> {
    const { client, tableName } = this.options;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      // Environments that lost the race to the same level spread out before reading it again.
      if (attempt > 1) await this.sleep(this.random() * this.baseDelayMs * 2 ** (attempt - 2));
      const read = await client.send(new GetCommand({ TableName: tableName, Key: { [KEY]: bucket }, ConsistentRead: true }));
      const stored = read.Item as LevelItem | undefined;
      const grant = grantTokens(levelOf(stored), budget, count, now, maxWaitMs);
      const item: LevelItem = { [KEY]: bucket, ...grant.level, version: (stored?.version ?? 0) + 1 };
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: item,
            ConditionExpression: stored ? '#version = :version' : 'attribute_not_exists(#bucket)',
            ExpressionAttributeNames: stored ? { '#version': 'version' } : { '#bucket': KEY },
            ...(stored ? { ExpressionAttributeValues: { ':version': stored.version } } : {}),
          }),
        );
        return { usableAt: grant.usableAt, nextAt: grant.nextAt };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
    throw new RateBudgetContentionError(bucket, this.maxAttempts);
  }

  async waitMs(bucket: RateBucket, budget: RateBudget, now: number): Promise<number> {
    const read = await this.options.client.send(new GetCommand({ TableName: this.options.tableName, Key: { [KEY]: bucket } }));
    const stored = read.Item as LevelItem | undefined;
    return tokenWaitMs(levelOf(stored), budget, now);
  }
}

/** The bucket's level as stored, without the item's key and version; undefined: never taken from. */
function levelOf(item: LevelItem | undefined): SharedBucketLevel | undefined {
  return item && { tokens: item.tokens, updatedAt: item.updatedAt };
}
