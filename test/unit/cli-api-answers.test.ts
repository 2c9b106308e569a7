/** Where the CLI sends its requests, and what it says of answers that are not the API's. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

const emptyList = () => new Response(JSON.stringify({ items: [] }), { status: 200, headers: { 'content-type': 'application/json' } });

describe('CLI endpoint and answers', () => {
  const h = cliHarness();

  it('sends to the local API at http://127.0.0.1:3000 when neither --endpoint nor EBS_PROVISIONER_ENDPOINT is given, as its help says', async () => {
    h.answer = emptyList;
    const run = await h.cli(['volumes', 'list'], { env: {} });
    expect(run).toMatchObject({ code: EXIT.ok, stdout: 'No volumes.\n' });
    expect(h.sent.map((request) => request.url)).toEqual(['http://127.0.0.1:3000/volumes?limit=100']);
  });

  it('keeps the stage path of an endpoint given with or without a trailing slash', async () => {
    h.answer = emptyList;
    for (const endpoint of ['http://127.0.0.1:3000/v1', 'http://127.0.0.1:3000/v1/']) {
      h.sent = [];
      const run = await h.cli(['--endpoint', endpoint, 'instances', 'attachments', 'i-0aaaaaaaaaaaaaaa1']);
      expect(run.code, endpoint).toBe(EXIT.ok);
      expect(h.sent.map((request) => request.url), endpoint).toEqual(['http://127.0.0.1:3000/v1/instances/i-0aaaaaaaaaaaaaaa1/attachments']);
    }
    // The API itself, given with a trailing slash: the same requests, the same answers.
    h.answer = undefined;
    h.sent = [];
    const created = await h.cli(['--endpoint', `${h.url}/`, 'volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    expect(created.code).toBe(EXIT.ok);
    expect(h.sent.map((request) => request.url)).toEqual([`${h.url}/volumes`]);
  });

  it('says an answer without a content type, or JSON that does not parse, is not the API\'s, naming what came', async () => {
    // A server answering 200 with nothing (no body, no content type).
    h.answer = () => new Response(null, { status: 200 });
    const empty = await h.cli(['volumes', 'get', 'data-01']);
    expect(empty.code).toBe(EXIT.failed);
    expect(empty.stderr).toBe(`error: GET ${h.url}/volumes/data-01 answered 200 with no content type, not the provisioner API's JSON: is ${h.url} its URL?\n`);
    // JSON cut short (a proxy that dropped the connection): named, not a parse error of the CLI.
    h.answer = () => new Response('{"volumeId": "data-', { status: 200, headers: { 'content-type': 'application/json' } });
    const cut = await h.cli(['volumes', 'get', 'data-01']);
    expect(cut.code).toBe(EXIT.failed);
    expect(cut.stderr).toBe(`error: GET ${h.url}/volumes/data-01 answered 200 with application/json, not the provisioner API's JSON: is ${h.url} its URL?\n`);
    h.answer = () => new Response('{"type": "https://', { status: 500, headers: { 'content-type': 'application/problem+json' } });
    const cutError = await h.cli(['volumes', 'get', 'data-01']);
    expect(cutError.code).toBe(EXIT.failed);
    expect(cutError.stderr).toBe(`error: 500: GET ${h.url}/volumes/data-01 answered 500 with application/problem+json, not the provisioner API's JSON: is ${h.url} its URL?\n`);
  });

  it('names the status of an error answered without a body by its reason phrase', async () => {
    h.answer = () => new Response(null, { status: 503, statusText: 'Service Unavailable' });
    const run = await h.cli(['volumes', 'delete', 'data-01']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe('error: 503: Service Unavailable\n');
  });

  it('refuses an endpoint holding a user name or password (exit 2, nothing sent), without printing it: fetch sends no such URL', async () => {
    for (const [endpoint, from] of [
      ['http://admin:s3cret@127.0.0.1:3000', '--endpoint'],
      ['https://admin@abc123defg.execute-api.eu-west-1.amazonaws.com/v1', '--endpoint'],
    ]) {
      const run = await h.cli(['--endpoint', endpoint!, 'volumes', 'list']);
      expect(run.code, endpoint).toBe(EXIT.usage);
      expect(run.stderr, endpoint).toBe(`error: ${from} holds a user name or password (user:password@): the API takes none in its URL; give it without them, such as http://127.0.0.1:3000\n`);
    }
    const fromEnv = await h.cli(['volumes', 'list'], { env: { EBS_PROVISIONER_ENDPOINT: 'http://admin:s3cret@127.0.0.1:3000' } });
    expect(fromEnv.code).toBe(EXIT.usage);
    expect(fromEnv.stderr).toMatch(/^error: EBS_PROVISIONER_ENDPOINT holds a user name or password/);
    expect(fromEnv.stderr).not.toContain('s3cret');
    expect(h.sent).toEqual([]);
  });

  it('masks the password of an endpoint that is no http:// or https:// URL when it names the endpoint refused (exit 2, nothing sent)', async () => {
    const run = await h.cli(['--endpoint', 'ftp://admin:s3cret@files.example.com/v1', 'volumes', 'list']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toBe('error: --endpoint ftp://admin:***@files.example.com/v1: expected an http:// or https:// URL, such as http://127.0.0.1:3000\n');
    expect(h.sent).toEqual([]);
  });

  it('names EBS_PROVISIONER_ENDPOINT when the plain-http endpoint it would sign for came from it (exit 2, nothing sent)', async () => {
    const run = await h.cli(['--sigv4', '--region', 'us-east-1', 'volumes', 'list'], { env: { EBS_PROVISIONER_ENDPOINT: 'http://api.example.com/v1' } });
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toBe(
      'error: EBS_PROVISIONER_ENDPOINT http://api.example.com/v1: signed requests go over https:// only (or to this machine), so no one on the way can read or replay them\n',
    );
    expect(h.sent).toEqual([]);
  });

  it('refuses an endpoint with a query or a fragment (exit 2, nothing sent), which left its stage path out of every request', async () => {
    for (const endpoint of ['http://127.0.0.1:3000/v1?stage=dev', 'http://127.0.0.1:3000/v1?', 'http://127.0.0.1:3000/v1#top']) {
      const run = await h.cli(['--endpoint', endpoint, 'volumes', 'list']);
      expect(run.code, endpoint).toBe(EXIT.usage);
      expect(run.stderr, endpoint).toBe(`error: --endpoint ${endpoint}: the API's base URL has no query or fragment (?…, #…); give it without, such as http://127.0.0.1:3000\n`);
    }
    expect(h.sent).toEqual([]);
  });
});
