import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { beforeAll, expect, it } from 'vitest';
import type { AwsClients } from '../../lib/aws/clients.js';
import { DynamoRateBudget } from '../../lib/aws/dynamodb-rate-budget.js';
import { ensureRateBudgetTable } from '../../lib/aws/table.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

const budget = { burst: 45, ratePerSecond: 5 };
const T = Date.parse('2026-01-01T00:00:00.000Z');

describeWithMoto('DynamoRateBudget against moto', (endpoint) => {
  let clients: AwsClients;
  let tables = 0;

  async function freshBudget(maxAttempts?: number): Promise<DynamoRateBudget> {
    const tableName = `rate-budget-${++tables}`;
    await ensureRateBudgetTable(clients.dynamo, tableName);
    return new DynamoRateBudget({ client: clients.doc, tableName, ...(maxAttempts ? { maxAttempts } : {}) });
  }

  beforeAll(() => {
    clients = motoClients(endpoint());
  });

  it('creates the table idempotently: one string key, on demand, no stream', async () => {
    await ensureRateBudgetTable(clients.dynamo, 'rate-budget-0');
    await ensureRateBudgetTable(clients.dynamo, 'rate-budget-0');
    const { Table } = await clients.dynamo.send(new DescribeTableCommand({ TableName: 'rate-budget-0' }));
    expect(Table?.KeySchema).toEqual([{ AttributeName: 'bucket', KeyType: 'HASH' }]);
    expect(Table?.AttributeDefinitions).toEqual([{ AttributeName: 'bucket', AttributeType: 'S' }]);
    expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
    expect(Table?.StreamSpecification?.StreamEnabled ?? false).toBe(false);
  });

  it('refuses a table of that name that exists with other keys, naming them', async () => {
    await clients.dynamo.send(
      new CreateTableCommand({
        TableName: 'rate-budget-other-keys',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
      }),
    );
    await expect(ensureRateBudgetTable(clients.dynamo, 'rate-budget-other-keys')).rejects.toThrow(
      'table rate-budget-other-keys exists but its keys are id (HASH), not bucket (HASH); delete it to have it created as the rate budget needs',
    );
  });

  it('takers share one level per bucket: the burst once, then the refill', async () => {
    const shared = await freshBudget();
    expect((await shared.take('AttachVolume', 30, budget, T, 0)).usableAt).toHaveLength(30);
    expect((await shared.take('AttachVolume', 30, budget, T, 0)).usableAt).toHaveLength(15);
    const soon = await shared.take('AttachVolume', 30, budget, T, 0);
    expect(soon.usableAt).toHaveLength(0);
    expect(soon.nextAt).toBe(T + 200);
    expect((await shared.take('AttachVolume', 30, budget, T + 2000, 0)).usableAt).toHaveLength(10);
    expect((await shared.take('CreateVolume', 30, budget, T, 0)).usableAt).toHaveLength(30);
  });

  it('reads the line the takers left: none while tokens remain, then the wait of the next token', async () => {
    const shared = await freshBudget();
    expect(await shared.waitMs('AttachVolume', budget, T)).toBe(0);
    await shared.take('AttachVolume', 55, budget, T, 60_000);
    expect(await shared.waitMs('AttachVolume', budget, T)).toBe(2200);
    expect(await shared.waitMs('DeleteVolume', budget, T)).toBe(0);
  });

  // One after the other: moto checks a condition and applies its write without a lock between them,
  // so truly concurrent takes may both pass there (DynamoDB makes each conditional write atomic; the
  // retry after a lost race is unit-tested with the exact ConditionalCheckFailedException).
  it('takers never get more than the bucket holds between them', async () => {
    const shared = await freshBudget(50);
    const grants = [];
    for (let taker = 0; taker < 8; taker++) grants.push(await shared.take('DeleteVolume', 10, budget, T, 0));
    expect(grants.reduce((sum, grant) => sum + grant.usableAt.length, 0)).toBe(45);
    expect(grants.map((grant) => grant.usableAt.length)).toEqual([10, 10, 10, 10, 5, 0, 0, 0]);
  });
});
