/**
 * The region a deployed API's requests are signed for, as `--help` gives it: `--region`, else the
 * one the URL names, then AWS_REGION, then AWS_DEFAULT_REGION.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

const API = 'https://abc123defg.execute-api.eu-west-1.amazonaws.com/v1';

describe('CLI signing region', () => {
  const h = cliHarness();

  const signedRegion = async (argv: string[]) => {
    h.answer = () => new Response('{"items":[]}', { status: 200, headers: { 'content-type': 'application/json' } });
    const run = await h.cli(['--endpoint', API, ...argv, 'volumes', 'list'], {
      env: { AWS_REGION: 'us-east-1', AWS_DEFAULT_REGION: 'eu-central-1' },
    });
    expect(run.code).toBe(EXIT.ok);
    expect(h.sent).toHaveLength(1);
    return /Credential=[^/]+\/\d{8}\/([^/]+)\/execute-api\/aws4_request/.exec(h.sent[0]!.headers.authorization ?? '')?.[1];
  };

  it("signs for the URL's region over AWS_REGION and AWS_DEFAULT_REGION", async () => {
    expect(await signedRegion([])).toBe('eu-west-1');
  });

  it('signs for --region over the URL', async () => {
    expect(await signedRegion(['--region', 'eu-north-1'])).toBe('eu-north-1');
  });
});
