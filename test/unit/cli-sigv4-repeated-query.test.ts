/** SigV4 over a query that names a parameter more than once, checked against the signature worked out by hand. */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRequestSigner } from '../../cli/sigv4.js';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

/** AWS's algorithm, step by step, for a GET of `host` `path` with a canonical query string given sorted. */
function expectedSignature(host: string, path: string, canonicalQuery: string, amzDate: string, region: string, service: string): string {
  const canonicalRequest = ['GET', path, canonicalQuery, `host:${host}\nx-amz-date:${amzDate}\n`, 'host;x-amz-date', sha256('')].join('\n');
  const scope = `${amzDate.slice(0, 8)}/${region}/${service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key: Buffer = hmac(`AWS4${CREDENTIALS.secretAccessKey}`, amzDate.slice(0, 8));
  for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
  return createHmac('sha256', key).update(toSign).digest('hex');
}

describe('SigV4 signing of a repeated query parameter', () => {
  it('signs every value of the name, sorted by value, as AWS checks them', async () => {
    const sign = createRequestSigner({ region: 'us-east-1', service: 'service', credentials: CREDENTIALS });
    const url = new URL('https://example.amazonaws.com/?tag=team&Param=b&tag=env&tag=app');
    const headers = await sign({ method: 'GET', url, headers: {} }, new Date('2015-08-30T12:36:00Z'));
    const signature = expectedSignature('example.amazonaws.com', '/', 'Param=b&tag=app&tag=env&tag=team', '20150830T123600Z', 'us-east-1', 'service');
    expect(headers.authorization).toBe(
      `AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=${signature}`,
    );
  });
});
