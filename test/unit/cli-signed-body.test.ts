/** A signed request's signature covers its body (the payload hash of SigV4's canonical request), worked out by hand. */
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

const SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY';
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');

describe('CLI signed requests with a body', () => {
  const h = cliHarness();

  it("signs the JSON body it sends, as AWS's algorithm hashes the payload", async () => {
    let sent: { url: string; headers: Headers; body: string } | undefined;
    const run = await h.cli(['--sigv4', '--region', 'eu-west-1', 'volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'signed'], {
      fetch: async (input, init) => {
        sent = { url: String(input), headers: new Headers(init?.headers), body: String(init?.body) };
        return fetch(input, init);
      },
    });
    expect(run.code).toBe(EXIT.ok);
    const { url, headers, body } = sent!;
    expect(JSON.parse(body)).toMatchObject({ volumeId: 'signed' });
    const amzDate = headers.get('x-amz-date')!;
    const host = new URL(url).host;
    const canonicalHeaders = `accept:${headers.get('accept')}\ncontent-type:application/json\nhost:${host}\nx-amz-date:${amzDate}\n`;
    const signedHeaders = 'accept;content-type;host;x-amz-date';
    const canonicalRequest = ['POST', '/volumes', '', canonicalHeaders, signedHeaders, sha256(body)].join('\n');
    const scope = `${amzDate.slice(0, 8)}/eu-west-1/execute-api/aws4_request`;
    const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
    let key: Buffer = hmac(`AWS4${SECRET}`, amzDate.slice(0, 8));
    for (const part of ['eu-west-1', 'execute-api', 'aws4_request']) key = hmac(key, part);
    const signature = createHmac('sha256', key).update(toSign).digest('hex');
    expect(headers.get('authorization')).toBe(`AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`);
  });
});
