import type { EventLoop } from './event-loop.js';

/**
 * A Lambda function's concurrency and bill: at most `maxConcurrency` invocations run at once;
 * every invocation counts one request and its duration, rounded up to the millisecond, times its
 * memory, in GB-seconds. Cold starts are not modelled.
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

  /** Runs one invocation now; the caller (an event source poller) must have checked `hasCapacity`. */
  async invoke<T>(handler: () => Promise<T>): Promise<T> {
    if (!this.hasCapacity()) throw new Error(`${this.name}: invoked above its concurrency limit ${this.maxConcurrency}`);
    this.running++;
    this.peakConcurrency = Math.max(this.peakConcurrency, this.running);
    this.invocations++;
    const started = this.loop.now();
    try {
      return await handler();
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
