/**
 * Real EC2 error objects for unit tests: an EC2Client whose HTTP layer answers with a recorded
 * EC2 error response, so the exception is built by the SDK's own ec2Query deserializer exactly as
 * in production (name and Code from <Code>, message, $fault, $metadata.httpStatusCode).
 */
import { Readable } from 'node:stream';
import { DescribeVolumesCommand, EC2Client } from '@aws-sdk/client-ec2';
import { HttpResponse } from '@smithy/protocol-http';

/** The XML body EC2 sends with an error (as seen in recorded responses). */
export function ec2ErrorBody(code: string, message: string): string {
  const escaped = message.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Response><Errors><Error><Code>${code}</Code><Message>${escaped}</Message></Error></Errors>` +
    '<RequestID>5ed6e5f2-9c2e-4d8f-9a8f-0a1b2c3d4e5f</RequestID></Response>'
  );
}

/** The exception the SDK throws when EC2 answers `status` with this error code and message. */
export async function realEc2Error(code: string, message: string, status = 400): Promise<Error> {
  const client = new EC2Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
    maxAttempts: 1,
    requestHandler: {
      handle: async () => ({
        response: new HttpResponse({
          statusCode: status,
          headers: { 'content-type': 'text/xml;charset=UTF-8' },
          body: Readable.from([Buffer.from(ec2ErrorBody(code, message))]),
        }),
      }),
    },
  });
  try {
    await client.send(new DescribeVolumesCommand({}));
  } catch (error) {
    return error as Error;
  } finally {
    client.destroy();
  }
  throw new Error('the stub EC2 endpoint did not produce an error');
}
