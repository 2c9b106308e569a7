import { DescribeStreamCommand, ExpiredIteratorException, GetRecordsCommand, GetShardIteratorCommand, InternalServerError } from '@aws-sdk/client-dynamodb-streams';
import { describe, expect, it } from 'vitest';
import { dynamoStreamSource } from '../../lib/local/moto-backend.js';

const streamArn = 'arn:aws:dynamodb:us-east-1:000000000000:table/t/stream/1';
const at = (n: number) => ({ eventName: 'INSERT', dynamodb: { SequenceNumber: String(n) } });

describe("the moto backend's stream source, replacing an expired shard iterator", () => {
  it('fails the read when the new iterator cannot be had for another reason than trimmed records, and takes up again after the last record read at a later read', async () => {
    const asked: string[] = [];
    let expired = false;
    let refusals = 1;
    const refusal = new InternalServerError({ message: 'Internal server error', $metadata: {} });
    const streams = {
      send: async (command: unknown) => {
        if (command instanceof DescribeStreamCommand) return { StreamDescription: { Shards: [{ ShardId: 's1' }] } };
        if (command instanceof GetShardIteratorCommand) {
          const { ShardIteratorType, SequenceNumber } = command.input;
          asked.push(`${ShardIteratorType}${SequenceNumber ? ` ${SequenceNumber}` : ''}`);
          if (SequenceNumber && refusals-- > 0) throw refusal;
          return { ShardIterator: SequenceNumber ? `after-${SequenceNumber}` : 'start' };
        }
        if (command instanceof GetRecordsCommand) {
          const { ShardIterator } = command.input;
          if (ShardIterator === 'start') return { Records: [at(1), at(2)], NextShardIterator: 'next' };
          if (ShardIterator === 'next') {
            expired = true;
            throw new ExpiredIteratorException({ message: 'Iterator expired', $metadata: {} });
          }
          if (ShardIterator === 'after-2') return { Records: [at(3)], NextShardIterator: 'after-3' };
          return { Records: [], NextShardIterator: ShardIterator };
        }
        throw new Error(`unexpected ${String(command)}`);
      },
    };
    const source = dynamoStreamSource({ streams } as unknown as Parameters<typeof dynamoStreamSource>[0], streamArn);
    const read = async () => (await source.read()).map((r) => Number(r.dynamodb!.SequenceNumber));
    expect(await read()).toEqual([1, 2]);
    await expect(source.read()).rejects.toBe(refusal);
    expect(expired).toBe(true);
    // The next read finds the iterator expired again and replaces it: no record is skipped or read twice.
    expect(await read()).toEqual([]);
    expect(await read()).toEqual([3]);
    expect(await read()).toEqual([]);
    expect(asked).toEqual(['TRIM_HORIZON', 'AFTER_SEQUENCE_NUMBER 2', 'AFTER_SEQUENCE_NUMBER 2']);
  });
});
