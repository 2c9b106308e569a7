/** The AWS clients of a moto backend under test, mocked, and an endpoint on them holding nothing yet. */
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { rateBudgetTableDefinition, tableDefinition } from '../../lib/aws/table.js';

// Every client of the backend, whatever endpoint it was given.
export const dynamo = mockClient(DynamoDBClient);
export const sqs = mockClient(SQSClient);
export const ec2 = mockClient(EC2Client);

/** An endpoint holding nothing yet, whose table, rate budget table and queues come up as defined. */
export function emptyEndpoint(): void {
  dynamo.on(CreateTableCommand).resolves({});
  dynamo.on(DescribeTableCommand).callsFake(({ TableName }: { TableName: string }) => {
    const definition = TableName.endsWith('-rate-budget') ? rateBudgetTableDefinition(TableName) : tableDefinition(TableName);
    return {
      Table: {
        TableName,
        TableStatus: 'ACTIVE',
        KeySchema: definition.KeySchema,
        ...(definition.GlobalSecondaryIndexes ? { GlobalSecondaryIndexes: definition.GlobalSecondaryIndexes.map((index) => ({ ...index, IndexStatus: 'ACTIVE' })) } : {}),
        ...(definition.StreamSpecification ? { StreamSpecification: definition.StreamSpecification, LatestStreamArn: `arn:aws:dynamodb:us-east-1:000000000000:table/${TableName}/stream/1` } : {}),
      },
    };
  });
  sqs.on(CreateQueueCommand).callsFake(({ QueueName }: { QueueName: string }) => ({ QueueUrl: `http://127.0.0.1:9/000000000000/${QueueName}` }));
  sqs.on(GetQueueAttributesCommand).callsFake(({ QueueUrl }: { QueueUrl: string }) => ({ Attributes: { QueueArn: `arn:aws:sqs:us-east-1:000000000000:${QueueUrl.split('/').pop()}` } }));
}
