import { setImmediate as macrotask } from 'node:timers/promises';
import type { Clock } from '../../lib/engine/ports.js';

interface ScheduledEvent {
  at: number;
  seq: number;
  fire: () => void;
}

/** Virtual epoch the simulations start at (2026-01-01T00:00:00Z), so ISO timestamps read sensibly. */
export const SIMULATION_EPOCH_MS = Date.UTC(2026, 0, 1);

/**
 * A discrete-event loop in virtual time. Events fire in (time, insertion) order; after each
 * instant the loop lets every promise continuation run (one macrotask turn drains the microtask
 * queue) before it moves time forward, so `await` chains in the code under test advance exactly
 * as they would in real time, only without waiting. No real timer is involved.
 */
export class EventLoop {
  private heap: ScheduledEvent[] = [];
  private seq = 0;
  private current: number;
  /** Events fired so far. */
  eventsFired = 0;

  /** The loop's clock: `sleep` schedules an event, so code on this clock runs in virtual time. */
  readonly clock: Clock = {
    now: () => this.current,
    sleep: (ms: number) => new Promise<void>((resolve) => this.after(ms, resolve)),
  };

  constructor(startMs: number = SIMULATION_EPOCH_MS) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  /** Runs `fire` at virtual time `at` (never in the past). */
  at(at: number, fire: () => void): void {
    this.push({ at: Math.max(at, this.current), seq: this.seq++, fire });
  }

  /** Runs `fire` `ms` milliseconds from now. */
  after(ms: number, fire: () => void): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new Error(`ms: must be a finite non-negative number, got ${ms}`);
    this.at(this.current + ms, fire);
  }

  pending(): number {
    return this.heap.length;
  }

  /**
   * Fires events until `done()` holds, nothing is scheduled any more, or virtual time would pass
   * `untilMs`. Returns why it stopped.
   */
  async run(options: { done?: () => boolean; untilMs?: number } = {}): Promise<'done' | 'idle' | 'deadline'> {
    await macrotask();
    for (;;) {
      if (options.done?.()) return 'done';
      const next = this.heap[0];
      if (!next) return 'idle';
      if (options.untilMs !== undefined && next.at > options.untilMs) return 'deadline';
      this.current = next.at;
      while (this.heap[0]?.at === this.current) {
        const event = this.pop();
        this.eventsFired++;
        event.fire();
      }
      await macrotask();
    }
  }

  // A binary heap on (at, seq): an event moves into the hole it is sifted to, without swaps.
  private push(event: ScheduledEvent): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(event);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const above = heap[parent]!;
      if (!before(event, above)) break;
      heap[i] = above;
      i = parent;
    }
    heap[i] = event;
  }

  private pop(): ScheduledEvent {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    const size = heap.length;
    if (size > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= size) break;
        const right = left + 1;
        const child = right < size && before(heap[right]!, heap[left]!) ? right : left;
        if (!before(heap[child]!, last)) break;
        heap[i] = heap[child]!;
        i = child;
      }
      heap[i] = last;
    }
    return top;
  }
}

function before(a: ScheduledEvent, b: ScheduledEvent): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}
