/** An API error with no field issues shows the problem's detail whole, whatever punctuation it holds. */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../cli/client.js';
import { describeError } from '../../cli/format.js';

describe('an API error without field issues', () => {
  it('keeps every part of its detail', () => {
    const error = new ApiError(409, {
      type: 'about:blank',
      title: 'Conflict',
      status: 409,
      detail: 'Volume data-01 is being deleted: wait for it to go, then create it again.',
      errors: [],
    }, 'conflict');
    expect(describeError(error)).toBe('error: 409 Conflict: Volume data-01 is being deleted: wait for it to go, then create it again.');
  });
});
