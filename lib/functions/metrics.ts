import type { Metrics } from '@aws-lambda-powertools/metrics';
import type { MiddlewareObj } from '@middy/core';

/**
 * Middy middleware publishing the metrics an invocation stored (the engine's counters) after the
 * handler, whether it returned or threw, as Powertools' `logMetrics` does, but only when there are
 * any. `logMetrics` publishes every time, and Powertools writes a plain-text warning to stderr for
 * an empty buffer, which is most invocations: per-operation metrics are published at once.
 */
export function publishStoredMetrics<E = unknown, R = unknown>(metrics: Metrics): MiddlewareObj<E, R> {
  const publish = async () => {
    if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
  };
  return { after: publish, onError: publish };
}
