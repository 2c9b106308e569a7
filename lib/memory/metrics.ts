import type { Metrics, OperationKind, OperationOutcome } from '../engine/ports.js';

export interface RecordedOperation {
  operation: OperationKind;
  outcome: OperationOutcome;
  latencyMs?: number;
}

/** Keeps every data point, for tests and the simulator's report. */
export class RecordingMetrics implements Metrics {
  readonly operations: RecordedOperation[] = [];
  private readonly counters = new Map<string, number>();

  operation(event: RecordedOperation): void {
    this.operations.push({ ...event });
  }

  count(name: string, value = 1): void {
    this.counters.set(name, (this.counters.get(name) ?? 0) + value);
  }

  /** Total of a counter (0 when never counted). */
  counter(name: string): number {
    return this.counters.get(name) ?? 0;
  }

  /** Outcomes seen, optionally for one operation, in order. */
  outcomes(operation?: OperationKind): OperationOutcome[] {
    return this.operations.filter((e) => !operation || e.operation === operation).map((e) => e.outcome);
  }
}
