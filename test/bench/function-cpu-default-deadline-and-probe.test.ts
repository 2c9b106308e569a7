/**
 * `npm run bench:cpu` without a time of its own gives up on lifecycles still open after 60 s + 2 s
 * per lifecycle, judged between invocations; and the volume it describes to measure EC2's
 * per-request CPU is removed afterwards. Backend and handlers are stand-ins; the clock is the
 * faked Date, moved on 1 s at each round.
 */
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { measureFunctionCpu } from '../../bench/cpu.js';

const state = vi.hoisted(() => ({ rounds: 0, deleted: [] as string[] }));

vi.mock('../../lib/functions/handlers.js', () => ({
  createWatcherHandler: () => async () => ({ batchItemFailures: [] }),
  createExecutorHandler: () => async () => ({ batchItemFailures: [] }),
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
          update: done,
          getMany: async (keys: { kind: string }[]) => {
            if (keys[0]?.kind === 'attachment') return [];
            // Each round ends with this read: the volumes stay, a second passes.
            state.rounds++;
            vi.setSystemTime(Date.now() + 1000);
            return keys;
          },
        },
        provider: {
          createVolume: async () => ({ ebsVolumeId: 'vol-probe' }),
          describeVolumes: async () => [],
          deleteVolume: async (id: string) => void state.deleted.push(id),
        },
        queue: { send: done },
      },
      // A stream record every round, so that no round waits for more.
      stream: { read: async () => [{ eventID: 'e' }] },
      messages: { receive: async () => [], delete: done },
      launchInstances: async () => ['i-1'],
      deleteCreated: done,
      stop: done,
    }),
  };
});

beforeEach(() => {
  state.rounds = 0;
  state.deleted = [];
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-01-01T00:00:00Z'));
});
afterEach(() => {
  vi.useRealTimers();
});

it('gives up after 60 s and 2 s per lifecycle by default, and removes the volume it described', async () => {
  const report = await measureFunctionCpu({ lifecycles: 3, endpoint: 'http://127.0.0.1:1', requestsPerClient: 1 });
  expect(report).toMatchObject({ lifecycles: 3, converged: 0 });
  // Rounds begun at 0 s, 1 s, … 65 s: the 66th ends at the deadline, 66 s.
  expect(state.rounds).toBe(66);
  expect(state.deleted).toEqual(['vol-probe']);
});
