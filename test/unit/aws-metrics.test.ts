import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmfMetrics } from '../../lib/aws/metrics.js';

interface EmfDocument {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

describe('EmfMetrics', () => {
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

  it('emits Operations by operation and outcome, and latency by operation', () => {
    const metrics = new EmfMetrics({ serviceName: 'executor' });
    metrics.operation({ operation: 'attach', outcome: 'succeeded', latencyMs: 120 });
    expect(lines).toHaveLength(2);
    const [operations, latency] = lines as [EmfDocument, EmfDocument];
    expect(operations._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: 'EbsProvisioner',
      Dimensions: [['operation', 'outcome']],
      Metrics: [{ Name: 'Operations', Unit: 'Count' }],
    });
    expect(operations).toMatchObject({ operation: 'attach', outcome: 'succeeded', Operations: 1 });
    expect(latency._aws.CloudWatchMetrics[0]).toMatchObject({
      Dimensions: [['operation']],
      Metrics: [{ Name: 'OperationLatency', Unit: 'Milliseconds' }],
    });
    expect(latency).toMatchObject({ operation: 'attach', OperationLatency: 120 });
    expect(metrics.powertools.hasStoredMetrics()).toBe(false);
  });

  it('buffers OperationsFailed (no dimensions) and counters until the handler flushes', () => {
    const metrics = new EmfMetrics();
    metrics.operation({ operation: 'create-volume', outcome: 'failed' });
    metrics.count('LeakedVolumes', 3);
    expect(lines).toHaveLength(1);
    metrics.powertools.publishStoredMetrics();
    const flushed = lines[1]!;
    expect(flushed._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([]);
    expect(flushed).toMatchObject({ OperationsFailed: 1, LeakedVolumes: 3 });
    expect(flushed).not.toHaveProperty('service');
  });
});
