import { createServer } from 'node:http';
import { AttachVolumeCommand } from '@aws-sdk/client-ec2';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsClients } from '../../lib/aws/clients.js';

const internalError =
  '<?xml version="1.0" encoding="UTF-8"?><Response><Errors><Error><Code>InternalError</Code><Message>An internal error has occurred.</Message></Error></Errors><RequestID>r-1</RequestID></Response>';
const attached =
  '<?xml version="1.0" encoding="UTF-8"?><AttachVolumeResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-2</requestId><volumeId>vol-1</volumeId><instanceId>i-1</instanceId><device>/dev/sdf</device><status>attaching</status></AttachVolumeResponse>';

describe('the metered EC2 client of a long-lived process', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('keeps retrying an internal error after more than a full retry quota of errors, each answered on its retry (a success gives back what its retry cost)', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'testing');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'testing');
    vi.stubEnv('AWS_REGION', 'us-east-1');
    // No backoff between attempts (full jitter: a random part of the delay, here none of it).
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let requests = 0;
    // Every first attempt fails; its retry succeeds.
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        requests++;
        if (requests % 2 === 1) response.writeHead(500, { 'content-type': 'text/xml' }).end(internalError);
        else response.writeHead(200, { 'content-type': 'text/xml' }).end(attached);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { ec2Metered } = createAwsClients({ endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
      // The standard quota holds 500 tokens, each retry taking some (5 to 14, by SDK version): retries never given back would empty it well before the 110th.
      for (let call = 1; call <= 110; call++) {
        const answer = await ec2Metered.send(new AttachVolumeCommand({ VolumeId: 'vol-1', InstanceId: 'i-1', Device: '/dev/sdf' })).catch((e: unknown) => e);
        expect(answer, `call ${call}`).toMatchObject({ State: 'attaching' });
      }
      expect(requests).toBe(220);
      ec2Metered.destroy();
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
