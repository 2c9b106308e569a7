/** The moto backend's stream records in Lambda's shape, its readings of a lost table or queue, its demo instances and its stop. */
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { DescribeImagesCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMotoBackend, dynamoStreamSource, LOCAL_AVAILABILITY_ZONE, lostWithEmulatorState } from '../../lib/local/moto-backend.js';
import { dynamo, ec2, emptyEndpoint, sqs } from './moto-backend-clients.js';

vi.mock('../../lib/local/moto.js', () => ({
  startMoto: async () => ({ endpoint: 'http://127.0.0.1:9', port: 9, stop: async () => {} }),
}));

describe("the moto backend's stream records", () => {
  it("carry the stream's ARN as their source and their creation time in epoch seconds, rounded down, as Lambda hands them over", async () => {
    const streamArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1';
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) return { StreamDescription: { Shards: [{ ShardId: 's1' }] } };
        if (command instanceof GetShardIteratorCommand) return { ShardIterator: 'start' };
        if (command instanceof GetRecordsCommand) {
          return command.input.ShardIterator === 'start'
            ? { Records: [{ eventName: 'INSERT', dynamodb: { SequenceNumber: '1', ApproximateCreationDateTime: new Date(1_767_225_600_999) } }], NextShardIterator: 'next' }
            : { Records: [], NextShardIterator: 'next' };
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const [record] = await dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], streamArn).read();
    expect(record).toMatchObject({ eventName: 'INSERT', eventSourceARN: streamArn, dynamodb: { SequenceNumber: '1', ApproximateCreationDateTime: 1_767_225_600 } });
  });
});

describe('an endpoint that no longer holds the table, stream or queue', () => {
  it.each(['ResourceNotFoundException', 'QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue'])('is read from %s, under either SQS protocol\'s name', (name) => {
    const error = Object.assign(new Error('gone'), { name });
    expect(String(lostWithEmulatorState(error, 'the operation queue q'))).toBe(
      `Error: the operation queue q is not at the endpoint (${name}: gone); an emulator restarted without its state has lost it: restart the runtime to create it again`,
    );
  });
});

describe('the moto backend', () => {
  beforeEach(() => {
    dynamo.reset();
    sqs.reset();
    ec2.reset();
  });
  afterAll(() => {
    dynamo.restore();
    sqs.restore();
    ec2.restore();
  });

  it('launches exactly the demo instances asked for, in the local availability zone', async () => {
    emptyEndpoint();
    ec2.on(DescribeImagesCommand).resolves({ Images: [{ ImageId: 'ami-1' }] });
    ec2.on(RunInstancesCommand).resolves({ Instances: [{ InstanceId: 'i-1' }, { InstanceId: 'i-2' }, { InstanceId: 'i-3' }] });
    const backend = await createMotoBackend({ endpoint: 'http://127.0.0.1:4566', ownerTagValue: 'local' });
    expect(await backend.launchInstances(3)).toEqual(['i-1', 'i-2', 'i-3']);
    const [run] = ec2.commandCalls(RunInstancesCommand).map((call) => call.args[0].input);
    expect(run).toMatchObject({ ImageId: 'ami-1', MinCount: 3, MaxCount: 3, Placement: { AvailabilityZone: LOCAL_AVAILABILITY_ZONE } });
    await backend.stop();
  });

  it('closes the connections of its clients at its stop', async () => {
    emptyEndpoint();
    const backend = await createMotoBackend({ endpoint: 'http://127.0.0.1:4566', ownerTagValue: 'local' });
    const destroyed = Object.values(backend.clients).map((client) => vi.spyOn(client, 'destroy'));
    await backend.stop();
    expect(destroyed.length).toBeGreaterThan(0);
    for (const spy of destroyed) expect(spy).toHaveBeenCalled();
  });
});
