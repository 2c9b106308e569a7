/**
 * The engine's Metrics port on Powertools Metrics (CloudWatch Embedded Metric Format), with the
 * metric names and dimensions the stack's alarms and dashboard read (METRICS in lib/settings.ts),
 * in the deployment's own namespace (`metricsNamespace`).
 */
import { Metrics as PowertoolsMetrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Metrics, OperationKind, OperationOutcome } from '../engine/ports.js';
import { METRICS } from '../settings.js';

/** Where the metrics go: the deployment's namespace. */
export interface EmfMetricsOptions {
  namespace: string;
}

export class EmfMetrics implements Metrics {
  /**
   * The Powertools instance holding buffered metrics (the counters, OperationsFailed among them).
   * The Lambda handlers flush it after each invocation that stored any, with the
   * `publishStoredMetrics` middy middleware (lib/functions/metrics.ts).
   */
  readonly powertools: PowertoolsMetrics;

  constructor(options: EmfMetricsOptions) {
    // The namespace is always given: Powertools would otherwise fall back to its environment
    // variable, or to a default namespace every deployment in the account shares.
    this.powertools = new PowertoolsMetrics({ namespace: options.namespace });
    // No default `service` dimension: alarms read OperationsFailed and the counters without
    // dimensions, and Operations / OperationLatency with exactly the dimensions below.
    this.powertools.clearDefaultDimensions();
  }

  /**
   * `Operations` (count; dimensions operation, outcome) and `OperationLatency` (ms; dimension
   * operation) are emitted at once, each in its own EMF document, since their dimension sets
   * differ per call. A failed outcome adds nothing to `OperationsFailed`: the engine counts that
   * itself (`count`), once per error status it writes.
   */
  operation(event: { operation: OperationKind; outcome: OperationOutcome; latencyMs?: number }): void {
    this.single()
      .addDimensions({ operation: event.operation, outcome: event.outcome })
      .addMetric(METRICS.operations, MetricUnit.Count, 1);
    if (event.latencyMs !== undefined) {
      this.single()
        .addDimension('operation', event.operation)
        .addMetric(METRICS.latency, MetricUnit.Milliseconds, Math.max(0, event.latencyMs));
    }
  }

  /** A metric published on its first value, without the `service` dimension Powertools adds by default. */
  private single(): PowertoolsMetrics {
    const single = this.powertools.singleMetric();
    single.clearDefaultDimensions();
    return single;
  }

  /**
   * Buffers an undimensioned counter. EMF's schema needs at least one dimension set per document
   * (`"Dimensions": [[]]` publishes a metric without dimensions), but Powertools writes
   * `"Dimensions": []` when it has none, which CloudWatch would reject, and then the alarms on
   * these counters could never fire. So whenever the buffer starts (a publish, or Powertools'
   * own flush at 100 values, clears dimension sets with it), an empty dimension set goes first.
   */
  count(name: string, value = 1): void {
    if (!this.powertools.hasStoredMetrics()) this.powertools.addDimensions({});
    this.powertools.addMetric(name, MetricUnit.Count, value);
  }
}
