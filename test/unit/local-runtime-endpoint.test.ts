/** docs/local.md: `--endpoint URL` is the AWS endpoint the moto backend uses instead of starting moto_server. */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';

/** The moto backend as asked for: the options it was given; its launch fails, which ends the start there. */
const backend = vi.hoisted(() => ({ options: [] as Array<{ endpoint?: string }>, launchError: new Error('RunInstances failed') }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  return {
    ...actual,
    createMotoBackend: async (options: { endpoint?: string }) => {
      backend.options.push(options);
      return {
        adapters: {},
        launchInstances: async () => {
          throw backend.launchError;
        },
        stop: async () => {},
      };
    },
  };
});

describe('startLocalRuntime on the moto backend', () => {
  beforeEach(() => {
    backend.options = [];
  });

  it('hands the backend the endpoint given, so it starts no moto_server of its own', async () => {
    await expect(startLocalRuntime({ backend: 'moto', endpoint: 'http://127.0.0.1:4566', port: 0, demoInstances: 1, log: new RecordingLog() })).rejects.toBe(backend.launchError);
    expect(backend.options).toHaveLength(1);
    expect(backend.options[0]!.endpoint).toBe('http://127.0.0.1:4566');
  });

  it('hands it no endpoint when none is given', async () => {
    await expect(startLocalRuntime({ backend: 'moto', port: 0, demoInstances: 1, log: new RecordingLog() })).rejects.toBe(backend.launchError);
    expect(backend.options).toHaveLength(1);
    expect(backend.options[0]!.endpoint).toBeUndefined();
  });
});
