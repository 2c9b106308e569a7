import { describe, expect, it, vi } from 'vitest';
import { createReconcilerHandler } from '../../lib/functions/handlers.js';
import { Reconciler } from '../../lib/engine/reconciler.js';
import { inMemoryAwsWithVolume } from './memory-store-fixtures.js';

async function reconcilerOverVolume() {
  const { deps } = await inMemoryAwsWithVolume();
  return { clock: deps.clock, handler: createReconcilerHandler(deps) };
}

describe('reconciler function: its summary and the scheduled time it reads', () => {
  it('counts the records it re-enqueued as requeued and the leaked EC2 volumes as leaked, each on its own', async () => {
    const { clock, handler } = await reconcilerOverVolume();
    // The pending volume has waited long past any retry: the pass sends it on again. Nothing has leaked.
    await clock.advance(24 * 60 * 60_000);
    const summary = await handler({});
    expect(summary).toMatchObject({ scanned: 1, requeued: 1, leaked: 0 });
  });

  it('takes only an ISO 8601 string as the time the schedule fired; any other event leaves it to the clock', async () => {
    const { handler } = await reconcilerOverVolume();
    const run = vi.spyOn(Reconciler.prototype, 'run');
    try {
      // A number is no ISO 8601 time, though as text it would read as the year 2026.
      await handler({ time: 2026 });
      expect(run).toHaveBeenLastCalledWith({});
      // An event that is not an object at all, null included.
      await handler(null);
      expect(run).toHaveBeenLastCalledWith({});
      await handler('2026-11-26T01:05:00Z');
      expect(run).toHaveBeenLastCalledWith({});
    } finally {
      run.mockRestore();
    }
  });
});
