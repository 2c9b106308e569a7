/**
 * A function's environment as the stack sets it: OWNER_TAG_VALUE is the deployment's, and the
 * engine tags the volumes it creates with it (the IAM conditions scope EC2 mutations to that
 * value); a required setting set to the empty string is not set; an optional number set to the
 * empty string counts as unset.
 */
import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../lib/engine/config.js';
import { readFunctionEnvironment } from '../../lib/functions/environment.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { data1Created, harness } from './engine-fixtures.js';

const BASE_ENV = { TABLE_NAME: 't', QUEUE_URL: 'q', OWNER_TAG_VALUE: 'stack-a', POWERTOOLS_METRICS_NAMESPACE: 'EbsProvisioner/stack-a' };

describe('the function environment', () => {
  it("gives the engine the deployment's owner tag value, which the volumes it creates carry", async () => {
    const env = readFunctionEnvironment(BASE_ENV);
    expect(resolveEngineConfig(env.engineConfig).ownerTagValue).toBe('stack-a');

    const h = harness({ config: env.engineConfig });
    await data1Created(h);
    expect(h.ebs.volumes().map((volume) => volume.tags[OWNERSHIP_TAGS.owner])).toEqual(['stack-a']);
  });

  it.each(['TABLE_NAME', 'QUEUE_URL', 'OWNER_TAG_VALUE', 'POWERTOOLS_METRICS_NAMESPACE'])('refuses %s set to the empty string as not set', (name) => {
    expect(() => readFunctionEnvironment({ ...BASE_ENV, [name]: '' })).toThrow(new Error(`${name} is not set`));
  });

  it('takes an optional number set to the empty string as unset: the engine keeps its defaults', () => {
    const env = readFunctionEnvironment({
      ...BASE_ENV,
      EXECUTOR_MAX_CONCURRENCY: '',
      EC2_RATE_BUDGET: '',
      EC2_REFILL_PER_SECOND: '',
      RECONCILER_SCAN_SEGMENTS: '',
      RATE_BUDGET_TABLE_NAME: '',
    });
    expect(env.engineConfig).toEqual({ ownerTagValue: 'stack-a' });
    expect(env.rateBudgetTableName).toBeUndefined();
  });
});
