/**
 * A path written like a route's template (`/volumes/{volumeId}`) is a path like any other: its
 * segment is the id it names, `{volumeId}`, which breaks the id rule. The answer says what is wrong
 * with that id; it does not say the id is missing.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness } from './api-fixtures.js';

describe('a path written like a route template', () => {
  it('names the id in its segment, refused by the id rule', async () => {
    const api = apiHarness();
    for (const [url, name, rule] of [
      ['/volumes/{volumeId}', 'volumeId', /^must be 1–128 letters/],
      ['/instances/{instanceId}/attachments', 'instanceId', /^must be an EC2 instance id/],
    ] as const) {
      const answer = await api.call({ method: 'GET', url });
      expect(answer.statusCode, url).toBe(400);
      expect((answer.json as { errors: unknown }).errors, url).toEqual([{ path: name, message: expect.stringMatching(rule) }]);
    }
  });
});
