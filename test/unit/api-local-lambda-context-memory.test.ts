/**
 * The Lambda context the local server runs the API handler with gives the API function's memory,
 * as its deployed context would (Powertools logs it with every line as `function_memory_size`).
 */
import { describe, expect, it } from 'vitest';
import { localLambdaContext } from '../../lib/api/node-server.js';
import { API } from '../../lib/settings.js';

describe('the Lambda context of a local request', () => {
  it("gives the API function's memory size, in MiB, as text", () => {
    expect(localLambdaContext('request-1').memoryLimitInMB).toBe(String(API.memoryMiB));
  });
});
