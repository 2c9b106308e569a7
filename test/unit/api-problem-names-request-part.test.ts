/** A refused request names the part of it that is wrong (the path, the query string, the request body) in `detail`. */
import { describe, expect, it } from 'vitest';
import { apiHarness } from './api-fixtures.js';

describe('a 400 for a bad path parameter', () => {
  it('says it is the path that is not valid, naming the parameter', async () => {
    const api = apiHarness();
    const answer = await api.call({ method: 'GET', url: '/instances/not-an-instance/attachments' });
    expect(answer.statusCode).toBe(400);
    const problem = answer.json as { detail: string; errors: { path: string }[] };
    expect(problem.detail).toMatch(/^the path is not valid: instanceId: /);
    expect(problem.errors.map((error) => error.path)).toEqual(['instanceId']);
  });
});
