import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmfMetrics } from '../../lib/aws/metrics.js';
import { METRICS } from '../../lib/settings.js';

interface EmfDocument {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

describe('EmfMetrics counters', () => {
  let lines: EmfDocument[];
  beforeEach(() => {
    // Powertools writes EMF through the global console in dev mode, so the test can read it.
    vi.stubEnv('POWERTOOLS_DEV', 'true');
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    lines = [];
    vi.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(JSON.parse(line)));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('are published as counts (unit Count), each engine counter of METRICS', () => {
    const metrics = new EmfMetrics({ namespace: 'EbsProvisioner/Prod' });
    const counters = [METRICS.failed, METRICS.invalidRecords, METRICS.leaked, METRICS.reconcilerPasses, METRICS.orphanVolumesFound];
    for (const name of counters) metrics.count(name);
    metrics.powertools.publishStoredMetrics();
    expect(lines).toHaveLength(1);
    const published = lines[0]!._aws.CloudWatchMetrics[0]!.Metrics;
    expect(published.map((metric) => metric.Name).sort()).toEqual([...counters].sort());
    for (const metric of published) expect(metric, metric.Name).toMatchObject({ Unit: 'Count' });
  });
});
