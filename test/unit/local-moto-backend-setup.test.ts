import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { DescribeImagesCommand, RunInstancesCommand } from '@aws-sdk/client-ec2';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMotoBackend } from '../../lib/local/moto-backend.js';
import { dynamo, ec2, emptyEndpoint, sqs } from './moto-backend-clients.js';

/** The moto_server a backend started without an endpoint: never spawned here, only counted. */
const moto = vi.hoisted(() => ({ started: 0, stopped: 0 }));
vi.mock('../../lib/local/moto.js', () => ({
  startMoto: async () => {
    moto.started++;
    return { endpoint: 'http://127.0.0.1:9', port: 9, stop: async () => void moto.stopped++ };
  },
}));

describe('the moto backend', () => {
  beforeEach(() => {
    dynamo.reset();
    sqs.reset();
    ec2.reset();
    moto.started = 0;
    moto.stopped = 0;
  });
  afterAll(() => {
    dynamo.restore();
    sqs.restore();
    ec2.restore();
  });

  it('stops the moto_server it started when the table cannot be created, and fails with the refusal', async () => {
    const denied = Object.assign(new Error('User is not authorized to perform: dynamodb:CreateTable'), { name: 'AccessDeniedException' });
    dynamo.on(CreateTableCommand).rejects(denied);
    await expect(createMotoBackend({ ownerTagValue: 'local' })).rejects.toBe(denied);
    expect(moto).toEqual({ started: 1, stopped: 1 });
  });

  it('starts no moto_server when given an endpoint, and stops none at its stop', async () => {
    emptyEndpoint();
    const backend = await createMotoBackend({ endpoint: 'http://127.0.0.1:4566', ownerTagValue: 'local' });
    expect(backend.endpoint).toBe('http://127.0.0.1:4566');
    await backend.stop();
    expect(moto).toEqual({ started: 0, stopped: 0 });
  });

  it('launches no demo instance when asked for none, without a call to EC2', async () => {
    emptyEndpoint();
    const backend = await createMotoBackend({ endpoint: 'http://127.0.0.1:4566', ownerTagValue: 'local' });
    expect(await backend.launchInstances(0)).toEqual([]);
    expect(ec2.calls()).toHaveLength(0);
    await backend.stop();
  });

  it('says so when the EC2 endpoint offers no image to launch demo instances from, launching none', async () => {
    emptyEndpoint();
    ec2.on(DescribeImagesCommand).resolves({ Images: [] });
    const backend = await createMotoBackend({ endpoint: 'http://127.0.0.1:4566', ownerTagValue: 'local' });
    await expect(backend.launchInstances(2)).rejects.toThrow('the EC2 endpoint offers no image to launch demo instances from');
    expect(ec2.commandCalls(RunInstancesCommand)).toHaveLength(0);
    await backend.stop();
  });
});
