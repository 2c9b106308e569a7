/** On the moto backend the local runtime tells its endpoint, table and queue (`LocalRuntime.aws`); on the memory backend it has none. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';

const names = {
  endpoint: 'http://127.0.0.1:4566',
  tableName: 'ebs-provisioner-local',
  rateBudgetTableName: 'ebs-provisioner-local-rate-budget',
  queueUrl: 'http://127.0.0.1:4566/000000000000/ebs-provisioner-operations',
  deadLetterQueueUrl: 'http://127.0.0.1:4566/000000000000/ebs-provisioner-operations-dlq',
};

vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  return {
    ...actual,
    createMotoBackend: async () => ({
      ...names,
      adapters: { store: {} },
      stream: { read: async () => [] },
      messages: { receive: async () => [], delete: async () => {} },
      launchInstances: async () => [],
      stop: async () => {},
    }),
  };
});

let runtime: LocalRuntime | undefined;
afterEach(async () => {
  await runtime?.stop();
  runtime = undefined;
});

describe('the local runtime', () => {
  it("on the moto backend, tells the backend's endpoint, tables and queues", async () => {
    runtime = await startLocalRuntime({ backend: 'moto', endpoint: names.endpoint, port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    expect(runtime.aws).toEqual(names);
  });

  it('on the memory backend, tells none', async () => {
    runtime = await startLocalRuntime({ backend: 'memory', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    expect(runtime.aws).toBeUndefined();
  });
});
