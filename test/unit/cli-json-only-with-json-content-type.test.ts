/**
 * The API answers JSON with a JSON content type: a body that reads as JSON but comes as a web page or
 * plain text is another server's at the endpoint, and is not taken for the API's answer.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI answers read as JSON only when they say they are', () => {
  const h = cliHarness();

  it('refuses a 200 whose JSON-looking body comes as text/html, naming the endpoint', async () => {
    h.answer = () => new Response('{"volumeId":"data-01"}', { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' } });
    const run = await h.cli(['volumes', 'get', 'data-01']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `error: GET ${h.url}/volumes/data-01 answered 200 with text/html; charset=utf-8, not the provisioner API's JSON: is ${h.url} its URL?\n`,
    );
  });

  it('prints a plain-text error whose body looks like a problem document as the text it is', async () => {
    const text = '{"type":"about:blank","status":409,"title":"Conflict","detail":"from another server"}';
    h.answer = () => new Response(text, { status: 409, headers: { 'content-type': 'text/plain' } });
    const run = await h.cli(['volumes', 'get', 'data-01']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe(`error: 409: ${text}\n`);
  });
});
