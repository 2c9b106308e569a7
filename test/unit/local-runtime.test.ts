import { describe, expect, it, vi } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';

/** The moto backend, started (as if with its own moto_server) but failing to launch the demo instances. */
const backend = vi.hoisted(() => ({
  stopped: 0,
  launchError: new Error('RunInstances failed'),
}));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  return {
    ...actual,
    createMotoBackend: async () => ({
      adapters: {},
      launchInstances: async () => {
        throw backend.launchError;
      },
      stop: async () => void backend.stopped++,
    }),
  };
});

describe('startLocalRuntime on the moto backend', () => {
  it('stops the backend it started when launching the demo instances fails, then fails with that error', async () => {
    await expect(startLocalRuntime({ backend: 'moto', port: 0, demoInstances: 2, log: new RecordingLog() })).rejects.toBe(backend.launchError);
    expect(backend.stopped).toBe(1);
  });
});
