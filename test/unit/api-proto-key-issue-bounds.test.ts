/** A body's `__proto__` keys at the bounds of what a 400 names: the first ones named, each path within 200 characters, the rest counted. */
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_UNKNOWN_FIELDS_LISTED } from '../../lib/domain/validation.js';
import { apiHarness, INSTANCE_A, type ApiHarness } from './api-fixtures.js';

interface Problem {
  type: string;
  errors: Array<{ path: string; message: string }>;
}

const MESSAGE = '"__proto__" cannot be a key';

describe('`__proto__` keys in a body', () => {
  let api: ApiHarness;
  const send = async (body: string) => {
    const response = await api.call({ method: 'PUT', url: `/volumes/data-01/attachments/${INSTANCE_A}`, headers: { 'content-type': 'application/json' }, body });
    expect(response.statusCode).toBe(400);
    return response.json as Problem;
  };

  beforeEach(() => {
    api = apiHarness();
  });

  it('counts one key beyond those named as "1 more key"', async () => {
    const count = MAX_UNKNOWN_FIELDS_LISTED + 1;
    const body = `{${Array.from({ length: count }, (_, i) => `"k${i}": {"__proto__": 1}`).join(', ')}}`;
    const { errors, type } = await send(body);
    expect(type).toBe('urn:ebs-provisioner:problem:validation-failed');
    expect(errors).toHaveLength(MAX_UNKNOWN_FIELDS_LISTED + 1);
    expect(errors[0]).toEqual({ path: 'k0.__proto__', message: MESSAGE });
    expect(errors.at(-1)).toEqual({ path: '', message: 'and 1 more "__proto__" key' });
  });

  it('names a path of 200 characters whole, and one of 201 by its start and its end within 200', async () => {
    const exact = `${'a'.repeat(190)}.__proto__`;
    expect(exact).toHaveLength(200);
    expect((await send(`{"${'a'.repeat(190)}": {"__proto__": 1}}`)).errors).toEqual([{ path: exact, message: MESSAGE }]);
    const longer = `${'b'.repeat(191)}.__proto__`;
    const { errors } = await send(`{"${'b'.repeat(191)}": {"__proto__": 1}}`);
    expect(errors).toEqual([{ path: `${longer.slice(0, 99)}…${longer.slice(-100)}`, message: MESSAGE }]);
    expect(errors[0]!.path).toHaveLength(200);
  });
});
