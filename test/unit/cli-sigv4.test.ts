import { describe, expect, it } from 'vitest';
import { createRequestSigner, isExecuteApiUrl, regionFromUrl } from '../../cli/sigv4.js';

/** The AWS SigV4 test suite's example credentials and time (get-vanilla and friends). */
const SUITE = {
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  region: 'us-east-1',
  service: 'service',
  date: new Date('2015-08-30T12:36:00Z'),
};

describe('SigV4 signing', () => {
  const sign = createRequestSigner(SUITE);

  it('matches the published get-vanilla vector', async () => {
    const headers = await sign({ method: 'GET', url: new URL('https://example.amazonaws.com/'), headers: {} }, SUITE.date);
    expect(headers['x-amz-date']).toBe('20150830T123600Z');
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, ' +
        'Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31',
    );
  });

  it('matches the published get-vanilla-query-order-key-case vector (query sorted)', async () => {
    const url = new URL('https://example.amazonaws.com/?Param2=value2&Param1=value1');
    const headers = await sign({ method: 'GET', url, headers: {} }, SUITE.date);
    expect(headers.authorization).toMatch(/Signature=b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500$/);
  });

  it('signs for execute-api in the region of the URL, covering content type and session token', async () => {
    const url = new URL('https://abc123defg.execute-api.eu-west-1.amazonaws.com/prod/volumes');
    expect(isExecuteApiUrl(url)).toBe(true);
    expect(regionFromUrl(url)).toBe('eu-west-1');
    const signer = createRequestSigner({
      region: regionFromUrl(url)!,
      credentials: async () => ({ ...SUITE.credentials, sessionToken: 'session-token' }),
    });
    const headers = await signer(
      { method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"spec":{}}' },
      new Date('2026-01-02T03:04:05Z'),
    );
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20260102\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
    expect(headers['x-amz-security-token']).toBe('session-token');
    expect(headers.host).toBe('abc123defg.execute-api.eu-west-1.amazonaws.com');
  });

  it('recognises only AWS hosts as signable', () => {
    expect(isExecuteApiUrl(new URL('http://127.0.0.1:3000'))).toBe(false);
    expect(regionFromUrl(new URL('http://127.0.0.1:3000'))).toBeUndefined();
    expect(regionFromUrl(new URL('https://api.example.com'))).toBeUndefined();
  });
});
