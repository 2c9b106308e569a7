/**
 * An API error's field lines name a command's option only for a field the command has one for: a
 * field named like a property every object has (`constructor`, `toString`) has no option.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../cli/client.js';
import { describeError } from '../../cli/format.js';

const problem = (paths: string[]) =>
  new ApiError(400, {
    type: 'about:blank',
    title: 'Bad Request',
    status: 400,
    detail: 'The request body is not valid.',
    errors: paths.map((path) => ({ path, message: 'Unrecognized key' })),
  }, 'bad request');

describe('an API error naming fields', () => {
  it('names no option beside a field the command has none for, even one named like an object property', () => {
    const lines = describeError(problem(['constructor', 'toString']), { 'spec.placementInstanceId': '--near' }).split('\n');
    expect(lines).toContain('  constructor: Unrecognized key');
    expect(lines).toContain('  toString: Unrecognized key');
  });

  it("names the command's option beside a field it has one for", () => {
    expect(describeError(problem(['spec.placementInstanceId']), { 'spec.placementInstanceId': '--near' }).split('\n')).toContain(
      '  spec.placementInstanceId (--near): Unrecognized key',
    );
  });
});
