/**
 * Under `npm start` the executors take EC2's request tokens from the one shared rate budget the
 * API reads its waits in line from, as the deployed functions share one table.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalRuntime } from '../../lib/local/runtime.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';
import { newVolume } from './engine-fixtures.js';

/** The memory backend as the runtime makes it, each take from its shared rate budget noted by bucket. */
const backend = vi.hoisted(() => ({ buckets: [] as string[] }));
vi.mock('../../lib/local/memory-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/memory-backend.js')>();
  const { memoryBackendSeen } = await import('./local-runtime-fixtures.js');
  return { ...actual, createMemoryBackend: memoryBackendSeen(actual.createMemoryBackend, (made) => {
    const take = made.rateBudget.take.bind(made.rateBudget);
    made.rateBudget.take = (bucket, ...rest) => {
      backend.buckets.push(bucket);
      return take(bucket, ...rest);
    };
  }) };
});

let runtime: LocalRuntime | undefined;
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
});

describe("the local runtime's executors", () => {
  it("take a volume's CreateVolume token from the shared rate budget", async () => {
    runtime = await startLocalRuntime({ backend: 'memory', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    await runtime.store.create(newVolume('data-1', {}, { availabilityZone: 'us-east-1a' }));
    await vi.waitFor(() => expect(backend.buckets).toContain('CreateVolume'), { timeout: 10_000, interval: 20 });
  });
});
