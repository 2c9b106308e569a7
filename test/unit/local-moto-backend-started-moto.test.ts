import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMotoBackend } from '../../lib/local/moto-backend.js';
import { dynamo, ec2, emptyEndpoint, sqs } from './moto-backend-clients.js';

/** The moto_server a backend started without an endpoint: never spawned here, only recorded. */
const moto = vi.hoisted(() => ({ options: [] as unknown[], stopped: 0 }));
vi.mock('../../lib/local/moto.js', () => ({
  startMoto: async (options: unknown) => {
    moto.options.push(options);
    return { endpoint: 'http://127.0.0.1:9', port: 9, stop: async () => void moto.stopped++ };
  },
}));

describe('the moto backend without an endpoint', () => {
  beforeEach(() => {
    dynamo.reset();
    sqs.reset();
    ec2.reset();
    moto.options = [];
    moto.stopped = 0;
    emptyEndpoint();
  });
  afterAll(() => {
    dynamo.restore();
    sqs.restore();
    ec2.restore();
  });

  it('starts moto_server in a process group of its own, and stops it at its stop', async () => {
    const backend = await createMotoBackend({ ownerTagValue: 'local' });
    expect(moto.options).toEqual([expect.objectContaining({ ownProcessGroup: true })]);
    expect(backend.endpoint).toBe('http://127.0.0.1:9');
    expect(moto.stopped).toBe(0);
    await backend.stop();
    expect(moto.stopped).toBe(1);
  });

  it('names its table ebs-provisioner-local and its rate budget table after it, and deletes only what it made: no EC2 call without demo instances', async () => {
    const backend = await createMotoBackend({ ownerTagValue: 'local' });
    expect(backend.tableName).toBe('ebs-provisioner-local');
    expect(backend.rateBudgetTableName).toBe('ebs-provisioner-local-rate-budget');
    dynamo.on(DeleteTableCommand).resolves({});
    sqs.on(DeleteQueueCommand).resolves({});
    await backend.deleteCreated();
    expect(dynamo.commandCalls(DeleteTableCommand).map((call) => call.args[0].input.TableName)).toEqual(['ebs-provisioner-local', 'ebs-provisioner-local-rate-budget']);
    expect(sqs.commandCalls(DeleteQueueCommand).map((call) => call.args[0].input.QueueUrl)).toEqual([backend.queueUrl, backend.deadLetterQueueUrl]);
    expect(ec2.calls()).toHaveLength(0);
    await backend.stop();
  });
});
