import { createServer } from 'node:http';
import { AttachVolumeCommand, EC2Client } from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ThrottlingLeftToCallerRetryStrategy } from '../../lib/aws/clients.js';

const ec2Error = (code: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>${code}</Code><Message>${code} from the test endpoint</Message></Error></Errors><RequestID>r-1</RequestID></Response>`;

/** An EC2 endpoint answering every request with `status` and the error `code`, counting the requests. */
async function failing(status: number, code: string) {
  let requests = 0;
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      requests++;
      response.writeHead(status, { 'content-type': 'text/xml' }).end(ec2Error(code));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

describe('ThrottlingLeftToCallerRetryStrategy', () => {
  afterEach(() => vi.restoreAllMocks());

  it.each([2, 4])('sends a call that meets an internal error at most the %i attempts it is given, and a throttled one once', async (maxAttempts) => {
    // No backoff between attempts (full jitter: a random part of the delay, here none of it).
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const internal = await failing(500, 'InternalError');
    const throttling = await failing(503, 'RequestLimitExceeded');
    try {
      const clientOf = (endpoint: string) =>
        new EC2Client({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' }, retryStrategy: new ThrottlingLeftToCallerRetryStrategy(maxAttempts) });
      const attach = new AttachVolumeCommand({ VolumeId: 'vol-1', InstanceId: 'i-1', Device: '/dev/sdf' });
      await expect(clientOf(internal.endpoint).send(attach)).rejects.toMatchObject({ name: 'InternalError', $metadata: { attempts: maxAttempts } });
      expect(internal.requests()).toBe(maxAttempts);
      await expect(clientOf(throttling.endpoint).send(attach)).rejects.toMatchObject({ name: 'RequestLimitExceeded' });
      expect(throttling.requests()).toBe(1);
    } finally {
      await internal.close();
      await throttling.close();
    }
  });
});
