/**
 * Stand-ins for the local runtime's backends, for `vi.mock` factories. A factory runs before the
 * test file's imports, so it loads this module itself:
 *
 * @example
 * const calls = vi.hoisted(() => ({ streamReads: 0, queueReads: 0, stopped: 0 }));
 * vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => ({
 *   ...(await importOriginal<typeof import('../../lib/local/moto-backend.js')>()),
 *   createMotoBackend: async () => (await import('./local-runtime-fixtures.js')).idleMotoBackend(calls),
 * }));
 */
import type { createMemoryBackend } from '../../lib/local/memory-backend.js';
import type { RecordStore } from '../../lib/engine/ports.js';

/** What the runtime asked of a stand-in moto backend. */
export interface MotoBackendCalls {
  streamReads: number;
  queueReads: number;
  stopped: number;
}

/**
 * A moto backend as `createMotoBackend` gives one once its moto_server answers: its stream and its
 * queue always empty, its table's adapter `store` (none by default), `instanceIds` its demo
 * instances; its reads and stops are counted in `calls`.
 */
export function idleMotoBackend(calls: MotoBackendCalls, { store = {}, instanceIds = [] }: { store?: Partial<RecordStore>; instanceIds?: string[] } = {}) {
  return {
    endpoint: 'http://127.0.0.1:1',
    adapters: { store },
    stream: { read: async () => (calls.streamReads++, []) },
    messages: { receive: async () => (calls.queueReads++, []), delete: async () => {} },
    launchInstances: async () => instanceIds,
    stop: async () => void calls.stopped++,
  };
}

/** A table adapter whose reads all end as `read` does (the reconciler's pass reads through these). */
export function storeReadingWith(read: () => Promise<never>): Partial<RecordStore> {
  return { list: read, get: read, getMany: read, attachmentsOfVolume: read, attachmentsOfInstance: read };
}

/** `createMemoryBackend` handing each backend it makes to `seen` (a test's hold on its rate budget, say). */
export function memoryBackendSeen(create: typeof createMemoryBackend, seen: (backend: ReturnType<typeof createMemoryBackend>) => void): typeof createMemoryBackend {
  return (...args) => {
    const made = create(...args);
    seen(made);
    return made;
  };
}
