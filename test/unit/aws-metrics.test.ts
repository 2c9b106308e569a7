import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EmfMetrics } from '../../lib/aws/metrics.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

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
    metrics.count('OperationsFailed');
    metrics.count('LeakedVolumes', 3);
    expect(lines).toHaveLength(0);
    metrics.powertools.publishStoredMetrics();
    const flushed = lines[0]!;
    expect(flushed._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([]);
    expect(flushed).toMatchObject({ OperationsFailed: 1, LeakedVolumes: 3 });
    expect(flushed).not.toHaveProperty('service');
  });

  it('one terminal failure in the executor emits OperationsFailed 1, not once more for its failed outcome', async () => {
    const h = harness();
    const metrics = new EmfMetrics();
    const executor = new Executor({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics, log: silentLog, config: { rateWaitMaxMs: 0 }, random: () => 0.5 });
    await h.store.create(newVolume('data-1'));
    h.ebs.failNext('CreateVolume', new ProviderError('invalid-request', 'InvalidParameterValue', 'bad iops'));
    await executor.run(h.batchOf(h.op('create-volume', volumeKey('data-1'))));
    expect((await h.store.get(volumeKey('data-1')))?.status).toMatchObject({ state: 'error', code: 'InvalidParameterValue' });
    const operations = lines.filter((line) => line.Operations !== undefined);
    expect(operations).toEqual([expect.objectContaining({ operation: 'create-volume', outcome: 'failed', Operations: 1 })]);
    metrics.powertools.publishStoredMetrics();
    const failed = lines.filter((line) => line._aws.CloudWatchMetrics[0]!.Metrics.some((metric) => metric.Name === 'OperationsFailed'));
    expect(failed).toHaveLength(1);
    expect(failed[0]!.OperationsFailed).toBe(1);
  });
});
