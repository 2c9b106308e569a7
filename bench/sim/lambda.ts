import type { EventLoop } from './event-loop.js';

/** Memory at which Lambda allocates one full vCPU (Lambda developer guide, "memory and computing power"). */
export const MIB_PER_VCPU = 1769;

/** A throttled asynchronous event's first retry, 1 s after the attempt (see `SimulatedFunction.invokeAsync`). */
export const ASYNC_THROTTLE_FIRST_RETRY_MS = 1000;
/** The longest interval between a throttled asynchronous event's retries: 5 minutes. */
export const ASYNC_THROTTLE_MAX_RETRY_MS = 300_000;
/** How long Lambda keeps an asynchronous event by default (maximum event age): 6 hours. */
export const ASYNC_MAX_EVENT_AGE_MS = 6 * 3_600_000;

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
  /** Asynchronous invocations throttled at least once (each is retried on the schedule of `invokeAsync`). */
  throttledEvents = 0;
  /** Throttled attempts of asynchronous invocations, all told. */
  throttledAttempts = 0;
  /** Asynchronous events dropped: still throttled when their next retry would pass the maximum event age. */
  expiredEvents = 0;

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
    }
  }

  /**
   * An asynchronous (event) invocation. Lambda queues it internally; an attempt that finds no
   * concurrency free is throttled, and "for throttling errors (429) and system errors (500-series),
   * Lambda returns the event to the queue and attempts to run the function again for up to 6 hours
   * by default. The retry interval increases exponentially from 1 second after the first attempt to
   * a maximum of 5 minutes" (Lambda developer guide, "How Lambda handles errors and retries with
   * asynchronous invocation"). No jitter is documented, so the schedule is deterministic: retries
   * 1 s, 2 s, 4 s, … after each throttled attempt, at most 300 s apart; an event whose next retry
   * would come after `maxEventAgeMs` (6 hours, the default maximum event age) is dropped. An event
   * does not start the moment a slot frees. (The guide adds that with many entries queued Lambda
   * lengthens the interval and reads the queue more slowly; that is not modelled.)
   * Resolves when the handler has finished or the event is dropped; errors are counted, not thrown.
   */
  async invokeAsync(handler: () => Promise<void>, maxEventAgeMs = ASYNC_MAX_EVENT_AGE_MS): Promise<void> {
    const queued = this.loop.now();
    let intervalMs = ASYNC_THROTTLE_FIRST_RETRY_MS;
    let throttled = false;
    while (!this.hasCapacity()) {
      this.throttledAttempts++;
      if (!throttled) this.throttledEvents++;
      throttled = true;
      if (this.loop.now() + intervalMs - queued > maxEventAgeMs) {
        this.expiredEvents++;
        return;
      }
      await this.loop.clock.sleep(intervalMs);
      intervalMs = Math.min(intervalMs * 2, ASYNC_THROTTLE_MAX_RETRY_MS);
    }
    try {
      await this.invoke(handler);
    } catch {
      // Counted in `errors`; an asynchronous invocation has no caller to tell.
    }
  }
}
