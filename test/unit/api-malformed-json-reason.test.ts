/** A body that is not JSON is a 400 `malformed-json` that says what is wrong with it, as a JSON parser reads it. */
import { describe, expect, it } from 'vitest';
import { apiHarness } from './api-fixtures.js';

function parseError(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} is JSON`);
}

describe('a body that is not JSON', () => {
  it('is answered with the reason the parser gives, in the detail and as the issue', async () => {
    const api = apiHarness();
    for (const body of ['{"spec":', '{"volumeId": data-01}', "{'spec': {}}"]) {
      const writes = api.store.writes;
      const answer = await api.call({ method: 'POST', url: '/volumes', headers: { 'content-type': 'application/json' }, body });
      expect(answer.statusCode, body).toBe(400);
      const reason = parseError(body);
      expect(answer.json, body).toMatchObject({
        type: 'urn:ebs-provisioner:problem:malformed-json',
        detail: `the request body is not valid JSON: ${reason}`,
        errors: [{ path: '', message: reason }],
      });
      expect(api.store.writes, body).toBe(writes);
    }
  });
});
