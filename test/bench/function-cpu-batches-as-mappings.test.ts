/**
 * `npm run bench:cpu` hands the handlers their records as the deployed event source mappings do:
 * stream records to the watcher in batches of at most WATCHER.batchSize, messages to the executor
 * in one batch of up to EXECUTOR.batchSize gathered over several receives (SQS gives at most 10 a
 * call, and fewer when it likes), and deletes what the executor did not report failed. Each invocation and record handed
 * over is counted once; the client's removal of a volume is asked for once, when it first sees
 * its attachment attached. Backend and handlers are stand-ins whose calls are recorded.
 */
import { beforeEach, expect, it, vi } from 'vitest';
import { measureFunctionCpu } from '../../bench/cpu.js';
import { EXECUTOR, WATCHER } from '../../lib/settings.js';

const state = vi.hoisted(() => ({
  watcherBatches: [] as number[],
  executorBatches: [] as number[],
  deleted: [] as string[],
  updates: [] as { key: unknown; change: unknown }[],
  streamReads: 0,
  queued: 0,
  volumeReads: 0,
}));

vi.mock('../../lib/functions/handlers.js', () => ({
  createWatcherHandler: () => async (event: { Records: unknown[] }) => {
    state.watcherBatches.push(event.Records.length);
    return { batchItemFailures: [] };
  },
  createExecutorHandler: () => async (event: { Records: { messageId: string }[] }) => {
    state.executorBatches.push(event.Records.length);
    // The first message of each batch failed: it stays in the queue.
    return { batchItemFailures: [{ itemIdentifier: event.Records[0]!.messageId }] };
  },
}));

vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  const done = async () => undefined;
  return {
    ...actual,
    createMotoBackend: async () => ({
      endpoint: 'http://127.0.0.1:1',
      adapters: {
        store: {
          create: done,
          get: done,
          update: async (key: unknown, change: unknown) => void state.updates.push({ key, change }),
          getMany: async (keys: { kind: string; volumeId: string; instanceId?: string }[]) => {
            if (keys[0]?.kind === 'attachment') return keys.map((key) => ({ ...key, status: { state: 'attached' } }));
            // The volume is still there after the first round, gone after the second.
            state.volumeReads++;
            return state.volumeReads < 2 ? keys : [];
          },
        },
        provider: {
          createVolume: async () => ({ ebsVolumeId: 'vol-probe' }),
          describeVolumes: async () => [],
          deleteVolume: done,
        },
        queue: { send: done },
      },
      // 250 stream records on the first read, none after.
      stream: { read: async () => (state.streamReads++ === 0 ? Array.from({ length: 250 }, (_, i) => ({ eventID: `e${i}` })) : []) },
      // 101 messages waiting. As the backend's receive: at least one asked of SQS, at most 10, and
      // SQS may give fewer than asked with more waiting (7 here).
      messages: {
        receive: async (max: number) => {
          const count = Math.min(Math.max(1, Math.min(10, max)), 7, 101 - state.queued);
          const got = Array.from({ length: count }, (_, i) => ({ messageId: `m${state.queued + i}` }));
          state.queued += count;
          return got;
        },
        delete: async (messages: { messageId: string }[]) => void state.deleted.push(...messages.map((m) => m.messageId)),
      },
      launchInstances: async () => ['i-1'],
      deleteCreated: done,
      stop: done,
    }),
  };
});

beforeEach(() => {
  Object.assign(state, { watcherBatches: [], executorBatches: [], deleted: [], updates: [], streamReads: 0, queued: 0, volumeReads: 0 });
});

it('hands stream records and messages over in the mappings\' batches, deletes what did not fail and counts each once', async () => {
  const report = await measureFunctionCpu({ lifecycles: 1, endpoint: 'http://127.0.0.1:1', requestsPerClient: 1, timeoutMs: 60_000 });
  expect(WATCHER.batchSize).toBe(100);
  expect(EXECUTOR.batchSize).toBe(100);
  expect(state.watcherBatches).toEqual([100, 100, 50]);
  expect(state.executorBatches).toEqual([100, 1]);
  expect(report.watcher).toMatchObject({ invocations: 3, records: 250 });
  expect(report.executor).toMatchObject({ invocations: 2, records: 101 });
  // All but each batch's failed first message (m0 and m100).
  expect(state.deleted).toHaveLength(99);
  expect(state.deleted).not.toContain('m0');
  expect(state.deleted).not.toContain('m100');
  expect(state.deleted).toContain('m1');
  expect(state.deleted).toContain('m99');
  // Seen attached twice, its volume's removal asked for once.
  expect(state.updates).toEqual([{ key: { kind: 'volume', volumeId: expect.stringMatching(/^v-cpu-/) }, change: { life: 'dying' } }]);
  expect(report).toMatchObject({ lifecycles: 1, converged: 1 });
});
