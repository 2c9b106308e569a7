import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isExecuteApiUrl, regionFromUrl } from '../../cli/sigv4.js';

interface Partition {
  id: string;
  outputs: { dnsSuffix: string };
  regions: Record<string, unknown>;
}

/** The AWS SDK's own partition data (the table its endpoint rules resolve Regions with). */
async function sdkPartitions(): Promise<Partition[]> {
  const core = dirname(createRequire(import.meta.url).resolve('@aws-sdk/core/package.json'));
  const file = join(core, 'dist-es/submodules/client/util-endpoints/lib/aws/partitions.js');
  const { partitionsInfo } = (await import(pathToFileURL(file).href)) as { partitionsInfo: { partitions: Partition[] } };
  return partitionsInfo.partitions;
}

describe('execute-api hosts in every AWS partition', () => {
  it('signs an API under the European Sovereign Cloud suffix, amazonaws.eu, in its Region', () => {
    const url = new URL('https://abc123defg.execute-api.eusc-de-east-1.amazonaws.eu/v1/volumes');
    expect(isExecuteApiUrl(url)).toBe(true);
    expect(regionFromUrl(url)).toBe('eusc-de-east-1');
  });

  it("recognises an API in each of the SDK's partitions, in each of its Regions, and reads that Region", async () => {
    const partitions = await sdkPartitions();
    expect(partitions.map((partition) => partition.id)).toContain('aws-eusc');
    for (const partition of partitions) {
      const regions = Object.keys(partition.regions).filter((region) => !region.startsWith('aws-'));
      expect(regions.length, partition.id).toBeGreaterThan(0);
      for (const region of regions) {
        const url = new URL(`https://abc123defg.execute-api.${region}.${partition.outputs.dnsSuffix}/v1`);
        expect(isExecuteApiUrl(url), url.hostname).toBe(true);
        expect(regionFromUrl(url), url.hostname).toBe(region);
        expect(regionFromUrl(new URL(`https://example.${region}.${partition.outputs.dnsSuffix}/`)), region).toBe(region);
      }
    }
  });

  it('takes no host whose suffix only starts like a partition\'s', () => {
    expect(isExecuteApiUrl(new URL('https://abc123defg.execute-api.eu-west-1.amazonaws.com.example.org/'))).toBe(false);
    expect(regionFromUrl(new URL('https://abc123defg.execute-api.eu-west-1.amazonaws.eu.example.org/'))).toBeUndefined();
    expect(isExecuteApiUrl(new URL('https://abc123defg.execute-api.eu-west-1.amazonawsxcom/'))).toBe(false);
  });
});
