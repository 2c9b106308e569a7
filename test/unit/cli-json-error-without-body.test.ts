/**
 * With `-o json`, an API error is the JSON the API answered with; an error the API answered with no
 * JSON at all (a gateway's text page) is text, as for a person (`formatError`).
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../cli/client.js';
import { formatError } from '../../cli/format.js';

describe('an API error in JSON output', () => {
  it('answered with no JSON is told as text', () => {
    expect(formatError(new ApiError(502, undefined, 'Bad Gateway'), 'json')).toBe('error: 502: Bad Gateway');
  });

  it('answered with JSON is that JSON', () => {
    const body = { message: 'Forbidden' };
    expect(JSON.parse(formatError(new ApiError(403, undefined, 'Forbidden', body), 'json'))).toEqual(body);
  });
});
