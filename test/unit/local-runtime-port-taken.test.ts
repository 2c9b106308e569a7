import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';

/** The moto backend, started (as if with its own moto_server), its demo instances launched. */
const calls = vi.hoisted(() => ({ streamReads: 0, queueReads: 0, stopped: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../lib/local/moto-backend.js')>()),
  createMotoBackend: async () => (await import('./local-runtime-fixtures.js')).idleMotoBackend(calls, { instanceIds: ['i-1'] }),
}));

describe('startLocalRuntime when its API port is taken', () => {
  let taken: Server;
  let port: number;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    port = (taken.address() as { port: number }).port;
  });
  afterAll(() => new Promise((resolve) => taken.close(resolve)));

  it('fails with the listen error, stops the backend it started and starts no poller', async () => {
    const error = await startLocalRuntime({ backend: 'moto', port, demoInstances: 1, log: new RecordingLog() }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'EADDRINUSE' });
    expect(calls).toEqual({ streamReads: 0, queueReads: 0, stopped: 1 });
  });
});
