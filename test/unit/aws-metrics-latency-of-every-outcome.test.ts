import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmfMetrics } from '../../lib/aws/metrics.js';
import type { OperationOutcome } from '../../lib/engine/ports.js';

interface EmfDocument {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

describe('EmfMetrics OperationLatency', () => {
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

  // The EC2 call time is a figure of the call, whatever EC2 answered: a refusal takes time too.
  it('is published for every outcome whose EC2 call was made, by operation alone', () => {
    const metrics = new EmfMetrics({ namespace: 'EbsProvisioner/Prod' });
    const outcomes: OperationOutcome[] = ['succeeded', 'in-progress', 'retrying', 'throttled', 'failed'];
    outcomes.forEach((outcome, i) => metrics.operation({ operation: 'modify-volume', outcome, latencyMs: 100 + i }));
    const latencies = lines.filter((line) => 'OperationLatency' in line);
    expect(latencies.map((line) => line.OperationLatency)).toEqual([100, 101, 102, 103, 104]);
    for (const line of latencies) {
      expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([['operation']]);
      expect(line).toMatchObject({ operation: 'modify-volume' });
      expect(line).not.toHaveProperty('outcome');
    }
  });
});
