/**
 * docs/api.md: a problem's `detail` names the first issues, their list within 2000 characters after
 * a few words saying what was not valid, and how many more; `errors` lists every one.
 */
import { describe, expect, it } from 'vitest';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import { apiHarness } from './api-fixtures.js';

describe('a 400 with more issues than its detail can name', () => {
  it('names the first ones within 2000 characters after its opening words, counts the rest, and lists every one in errors', async () => {
    const api = apiHarness();
    // 48 tags each refused for its characters: one issue a tag, far more text than 2000 characters.
    const tags = Object.fromEntries(Array.from({ length: 48 }, (_, i) => [`key-${String(i).padStart(2, '0')}-${'x'.repeat(60)}`, `bad value ${i} #`]));
    const response = await api.call({ method: 'POST', url: '/volumes', json: { spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags } } });
    expect(response.statusCode).toBe(400);
    const problem = response.json as { detail: string; errors: { path: string }[] };
    expect(problem.errors).toHaveLength(48);
    const opening = 'the request body is not valid: ';
    expect(problem.detail.startsWith(opening)).toBe(true);
    const list = problem.detail.slice(opening.length);
    expect(list.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
    const [, named, more] = /^(.*); … \((\d+) more issues\)$/s.exec(list) ?? [];
    expect(named, list.slice(-80)).toBeDefined();
    expect(named!.split('; ').length + Number(more)).toBe(48);
  });
});
