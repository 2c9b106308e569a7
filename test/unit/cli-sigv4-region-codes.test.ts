import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isExecuteApiUrl, regionFromUrl } from '../../cli/sigv4.js';

/** Each AWS partition's Region pattern, from the SDK's own partition data (`regionRegex`). */
async function sdkRegionPatterns(): Promise<RegExp[]> {
  const core = dirname(createRequire(import.meta.url).resolve('@aws-sdk/core/package.json'));
  const file = join(core, 'dist-es/submodules/client/util-endpoints/lib/aws/partitions.js');
  const { partitionsInfo } = (await import(pathToFileURL(file).href)) as { partitionsInfo: { partitions: { regionRegex: string }[] } };
  return partitionsInfo.partitions.map((partition) => new RegExp(partition.regionRegex));
}

describe('the Region a host names', () => {
  it('is read when, and only when, the label before the DNS suffix is a Region code of an AWS partition', async () => {
    const patterns = await sdkRegionPatterns();
    const labels = ['us-east-1', 'ap-southeast-12', 'us-gov-west-10', 'eusc-de-east-1', 'us-isob-east-1', 'local-1', 'east-1', 'us-east', 's3'];
    for (const label of labels) {
      const isRegion = patterns.some((pattern) => pattern.test(label));
      expect(regionFromUrl(new URL(`https://abc123defg.execute-api.${label}.amazonaws.com/v1`)), label).toBe(isRegion ? label : undefined);
      expect(isExecuteApiUrl(new URL(`https://abc123defg.execute-api.${label}.amazonaws.com/v1`)), label).toBe(isRegion);
    }
    // Both sides of the rule are exercised.
    expect(labels.filter((label) => patterns.some((pattern) => pattern.test(label)))).toEqual(['us-east-1', 'ap-southeast-12', 'us-gov-west-10', 'eusc-de-east-1', 'us-isob-east-1']);
  });

  it('takes as an API endpoint only a host whose first label is the API id (https://<api-id>.execute-api.<region>...)', () => {
    expect(isExecuteApiUrl(new URL('https://abc123defg.execute-api.eu-west-1.amazonaws.com/v1'))).toBe(true);
    expect(isExecuteApiUrl(new URL('https://www.abc123defg.execute-api.eu-west-1.amazonaws.com/v1'))).toBe(false);
  });
});
