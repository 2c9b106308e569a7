import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAwsAdapters } from '../../lib/aws/adapters.js';
import { createAwsClients } from '../../lib/aws/clients.js';
import { EmfMetrics } from '../../lib/aws/metrics.js';
import { METRICS } from '../../lib/settings.js';
import { readFunctionEnvironment } from '../../lib/functions/environment.js';
import { Executor } from '../../lib/engine/executor.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { ProviderError, type OperationOutcome } from '../../lib/engine/ports.js';
import { silentLog } from '../../lib/memory/log.js';
import { harness, newVolume, volumeKey } from './engine-fixtures.js';

interface EmfDocument {
  _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/**
 * The rules of CloudWatch's EMF specification a document must keep for its metrics to be
 * extracted: at least one dimension set per directive (the schema's `minItems: 1`; a set may be
 * empty), at most 30 keys per set, each key and each metric a member of the document.
 */
function expectExtractable(document: EmfDocument): void {
  for (const directive of document._aws.CloudWatchMetrics) {
    expect(directive.Dimensions.length, 'a directive needs at least one dimension set').toBeGreaterThan(0);
    for (const set of directive.Dimensions) {
      expect(set.length).toBeLessThanOrEqual(30);
      for (const key of set) expect(typeof document[key]).toBe('string');
    }
    for (const metric of directive.Metrics) {
      const value = document[metric.Name];
      expect(typeof value === 'number' || (Array.isArray(value) && value.length <= 100 && value.every((v) => typeof v === 'number'))).toBe(true);
    }
  }
}

/** One deployment's namespace (`metricsNamespace` of its stack name). */
const NAMESPACE = 'EbsProvisioner/Prod';

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
    for (const line of lines) expectExtractable(line);
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('emits Operations by operation and outcome, and latency by operation', () => {
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
    metrics.operation({ operation: 'attach', outcome: 'succeeded', latencyMs: 120 });
    expect(lines).toHaveLength(2);
    const [operations, latency] = lines as [EmfDocument, EmfDocument];
    expect(operations._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: NAMESPACE,
      Dimensions: [['operation', 'outcome']],
      Metrics: [{ Name: 'Operations', Unit: 'Count' }],
    });
    expect(operations).toMatchObject({ operation: 'attach', outcome: 'succeeded', Operations: 1 });
    expect(latency._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: NAMESPACE,
      Dimensions: [['operation']],
      Metrics: [{ Name: 'OperationLatency', Unit: 'Milliseconds' }],
    });
    expect(latency).toMatchObject({ operation: 'attach', OperationLatency: 120 });
    expect(metrics.powertools.hasStoredMetrics()).toBe(false);
  });

  it('emits a latency of 0 ms, a negative one (a clock stepped back) as 0, and none when the operation has no latency', () => {
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
    metrics.operation({ operation: 'attach', outcome: 'succeeded', latencyMs: 0 });
    metrics.operation({ operation: 'detach', outcome: 'succeeded', latencyMs: -5 });
    metrics.operation({ operation: 'create-volume', outcome: 'throttled' });
    expect(lines.filter((line) => 'OperationLatency' in line).map((line) => [line.operation, line.OperationLatency])).toEqual([
      ['attach', 0],
      ['detach', 0],
    ]);
    expect(lines.filter((line) => 'Operations' in line)).toHaveLength(3);
  });

  it('buffers OperationsFailed (no dimensions) and counters until the handler flushes', () => {
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
    metrics.count('OperationsFailed');
    metrics.count('LeakedVolumes', 3);
    expect(lines).toHaveLength(0);
    metrics.powertools.publishStoredMetrics();
    const flushed = lines[0]!;
    // One empty dimension set: the metrics without dimensions the alarms read.
    expect(flushed._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: NAMESPACE, Dimensions: [[]] });
    expect(flushed).toMatchObject({ OperationsFailed: 1, LeakedVolumes: 3 });
    expect(flushed).not.toHaveProperty('service');
    metrics.count('OperationsFailed');
    metrics.powertools.publishStoredMetrics();
    expect(lines).toHaveLength(2);
    expect(lines[1]!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([[]]);
  });

  it('a counter reaching 100 values is published by Powertools on its own, and the documents on both sides of it keep their empty dimension set', () => {
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
    for (let i = 0; i < 150; i++) metrics.count('OperationsFailed');
    expect(lines).toHaveLength(1);
    metrics.powertools.publishStoredMetrics();
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([[]]);
    const total = lines.flatMap((line) => line.OperationsFailed as number | number[]).reduce((sum, value) => sum + value, 0);
    expect(total).toBe(150);
  });

  it('one terminal failure in the executor emits OperationsFailed 1, not once more for its failed outcome', async () => {
    const h = harness();
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
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

  it('every reconciler pass counts itself (the ReconcilerNotRunning alarm counts these samples), and one that judged every owned volume publishes its leak count, zero too', async () => {
    const h = harness();
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
    const reconciler = new Reconciler({ store: h.store, queue: h.queue, provider: h.ebs, clock: h.clock, metrics, log: silentLog, config: {} });
    for (let pass = 0; pass < 2; pass++) {
      expect((await reconciler.run()).leaked).toEqual([]);
      metrics.powertools.publishStoredMetrics();
    }
    expect(lines.map((line) => line.LeakedVolumes)).toEqual([0, 0]);
    expect(lines.map((line) => line.ReconcilerPasses)).toEqual([1, 1]);
  });

  it('a function\'s metrics go to the namespace its environment names, the deployment\'s own, not to one every deployment shares', () => {
    // What a deployed function does (functions/reconciler.ts): its environment read, the adapters built from it.
    const env = readFunctionEnvironment({ TABLE_NAME: 't', QUEUE_URL: 'http://127.0.0.1:1/q', OWNER_TAG_VALUE: 'Prod', POWERTOOLS_METRICS_NAMESPACE: NAMESPACE });
    const clients = createAwsClients({ endpoint: 'http://127.0.0.1:1', region: 'us-east-1' });
    const { metrics } = createAwsAdapters({ ...env, clients });
    metrics.count('LeakedVolumes', 0);
    metrics.operation({ operation: 'attach', outcome: 'succeeded', latencyMs: 5 });
    metrics.powertools.publishStoredMetrics();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line._aws.CloudWatchMetrics[0]!.Namespace).toBe(NAMESPACE);
  });

  it('publishes each engine counter of METRICS as a count (unit Count)', () => {
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
    const counters = [METRICS.failed, METRICS.invalidRecords, METRICS.leaked, METRICS.reconcilerPasses, METRICS.orphanVolumesFound];
    for (const name of counters) metrics.count(name);
    metrics.powertools.publishStoredMetrics();
    expect(lines).toHaveLength(1);
    const published = lines[0]!._aws.CloudWatchMetrics[0]!.Metrics;
    expect(published.map((metric) => metric.Name).sort()).toEqual([...counters].sort());
    for (const metric of published) expect(metric, metric.Name).toMatchObject({ Unit: 'Count' });
  });

  // The EC2 call time is a figure of the call, whatever EC2 answered: a refusal takes time too.
  it('publishes OperationLatency for every outcome whose EC2 call was made, by operation alone', () => {
    const metrics = new EmfMetrics({ namespace: NAMESPACE });
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
