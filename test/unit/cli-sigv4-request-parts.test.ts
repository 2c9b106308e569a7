import { describe, expect, it } from 'vitest';
import { createRequestSigner, isExecuteApiUrl, regionFromUrl } from '../../cli/sigv4.js';

/** The AWS SigV4 test suite's example credentials and time (get-vanilla and friends). */
const SUITE = {
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
  region: 'us-east-1',
  service: 'service',
  date: new Date('2015-08-30T12:36:00Z'),
};
const GET_VANILLA_SIGNATURE = '5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31';

const signatureOf = (headers: Record<string, string>) => /Signature=([0-9a-f]{64})$/.exec(headers.authorization ?? '')?.[1];

describe('what a SigV4 signature covers', () => {
  const sign = createRequestSigner(SUITE);

  it('signs a method given in lower case as the upper-case method sent (the get-vanilla vector)', async () => {
    const headers = await sign({ method: 'get', url: new URL('https://example.amazonaws.com/'), headers: {} }, SUITE.date);
    expect(signatureOf(headers)).toBe(GET_VANILLA_SIGNATURE);
  });

  it('covers the body: two bodies give two signatures', async () => {
    const url = new URL('https://example.amazonaws.com/volumes');
    const one = await sign({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"spec":{"sizeGiB":10}}' }, SUITE.date);
    const other = await sign({ method: 'POST', url, headers: { 'content-type': 'application/json' }, body: '{"spec":{"sizeGiB":20}}' }, SUITE.date);
    expect(signatureOf(one)).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureOf(other)).toMatch(/^[0-9a-f]{64}$/);
    expect(signatureOf(one)).not.toBe(signatureOf(other));
  });

  it('covers the path as sent, letter case included', async () => {
    const lower = await sign({ method: 'GET', url: new URL('https://example.amazonaws.com/prod/volumes/data-1'), headers: {} }, SUITE.date);
    const upper = await sign({ method: 'GET', url: new URL('https://example.amazonaws.com/prod/volumes/Data-1'), headers: {} }, SUITE.date);
    expect(signatureOf(lower)).not.toBe(signatureOf(upper));
  });

  it('signs the host header with a port that is not the scheme default', async () => {
    const withPort = await sign({ method: 'GET', url: new URL('https://example.amazonaws.com:8443/'), headers: {} }, SUITE.date);
    expect(withPort.host).toBe('example.amazonaws.com:8443');
    expect(withPort.authorization).toContain('SignedHeaders=host;x-amz-date');
    // The host signed is not the one of get-vanilla, which has no port.
    expect(signatureOf(withPort)).not.toBe(GET_VANILLA_SIGNATURE);
  });
});

describe('execute-api hosts and their regions', () => {
  it('recognises an API in a China region, under amazonaws.com.cn', () => {
    const url = new URL('https://abc123defg.execute-api.cn-north-1.amazonaws.com.cn/prod/volumes');
    expect(isExecuteApiUrl(url)).toBe(true);
    expect(regionFromUrl(url)).toBe('cn-north-1');
  });

  it('does not take a host that only has execute-api inside its first label', () => {
    expect(isExecuteApiUrl(new URL('https://abc-execute-api.eu-west-1.amazonaws.com/'))).toBe(false);
  });

  it('reads the region of another regional AWS host, GovCloud included', () => {
    expect(regionFromUrl(new URL('https://example.eu-west-1.amazonaws.com/'))).toBe('eu-west-1');
    expect(regionFromUrl(new URL('https://example.us-gov-west-1.amazonaws.com/'))).toBe('us-gov-west-1');
  });
});
