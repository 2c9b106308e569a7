import type { EventLoop } from './event-loop.js';

/** Memory at which Lambda allocates one full vCPU (Lambda developer guide, "memory and computing power"). */
export const MIB_PER_VCPU = 1769;

/**
 * What `cpuMs` of CPU time (on one full core) comes to in a function of `memoryMiB`: its share of
 * a vCPU, the wall time that work takes there, and the GB-seconds billed for it.
 *
 * @example
 * lambdaCpuCost(100, 1024); // ≈ { vcpu: 0.579, wallMs: 172.8, gbSeconds: 0.173 }
 */
export function lambdaCpuCost(cpuMs: number, memoryMiB: number): { vcpu: number; wallMs: number; gbSeconds: number } {
  const vcpu = Math.min(1, memoryMiB / MIB_PER_VCPU);
  const wallMs = cpuMs / vcpu;
  return { vcpu, wallMs, gbSeconds: (wallMs / 1000) * (memoryMiB / 1024) };
}

/** What a handler can ask of its invocation's context. */
export interface InvocationContext {
  /** Milliseconds left before the function's timeout (Lambda's `getRemainingTimeInMillis`). */
  remainingTimeMs(): number;
}

/**
 * A Lambda function's concurrency and bill: at most `maxConcurrency` invocations run at once;
 * every invocation counts one request and its duration, rounded up to the millisecond, times its
 * memory, in GB-seconds. An invocation handed `items` (stream records, messages) first spends
 * `cpuMsPerItem` of one core's CPU time on each, stretched by the share of a vCPU its memory buys
 * (`lambdaCpuCost`), before its waits for AWS begin. Cold starts are not modelled.
 */
export class SimulatedFunction {
  invocations = 0;
  billedMs = 0;
  running = 0;
  peakConcurrency = 0;
  /** Invocations that ended with an error (the handler threw). */
  errors = 0;
  /** Invocations that ran longer than the function's timeout (Lambda would have stopped them). */
  overTimeout = 0;
  private waiting: Array<() => void> = [];

  constructor(
    private readonly loop: EventLoop,
    readonly name: string,
    readonly memoryMiB: number,
    readonly maxConcurrency: number = Number.POSITIVE_INFINITY,
    readonly timeoutMs: number = 900_000,
    /** CPU time per item on one full core (ms); 0: the invocation lasts only as long as its waits. */
    readonly cpuMsPerItem: number = 0,
  ) {
    if (!(memoryMiB >= 128)) throw new Error(`memoryMiB: must be at least 128, got ${memoryMiB}`);
    if (!(maxConcurrency >= 1)) throw new Error(`maxConcurrency: must be at least 1, got ${maxConcurrency}`);
  }

  get gbSeconds(): number {
    return ((this.memoryMiB / 1024) * this.billedMs) / 1000;
  }

  hasCapacity(): boolean {
    return this.running < this.maxConcurrency;
  }

  /** Runs one invocation of `items` now; the caller (an event source poller) must have checked `hasCapacity`. */
  async invoke<T>(handler: (context: InvocationContext) => Promise<T>, items = 0): Promise<T> {
    if (!this.hasCapacity()) throw new Error(`${this.name}: invoked above its concurrency limit ${this.maxConcurrency}`);
    this.running++;
    this.peakConcurrency = Math.max(this.peakConcurrency, this.running);
    this.invocations++;
    const started = this.loop.now();
    try {
      const cpuMs = items * this.cpuMsPerItem;
      // Whole milliseconds, as a real clock reads.
      if (cpuMs > 0) await this.loop.clock.sleep(Math.ceil(lambdaCpuCost(cpuMs, this.memoryMiB).wallMs));
      return await handler({ remainingTimeMs: () => Math.max(0, started + this.timeoutMs - this.loop.now()) });
    } catch (error) {
      this.errors++;
      throw error;
    } finally {
      const duration = this.loop.now() - started;
      if (duration > this.timeoutMs) this.overTimeout++;
      this.billedMs += Math.max(1, Math.ceil(Math.min(duration, this.timeoutMs)));
      this.running--;
      this.waiting.shift()?.();
    }
  }

  /**
   * An asynchronous (event) invocation: Lambda queues it internally and runs it once
   * concurrency is free. Resolves when the handler has finished; errors are counted, not thrown.
   */
  async invokeAsync(handler: () => Promise<void>): Promise<void> {
    while (!this.hasCapacity()) await new Promise<void>((resolve) => this.waiting.push(resolve));
    try {
      await this.invoke(handler);
    } catch {
      // Counted in `errors`; an asynchronous invocation has no caller to tell.
    }
  }
}
