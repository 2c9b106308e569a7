/** The CLI run in-process against the API served over HTTP from a memory store, for the CLI's tests. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { RecordKey, VolumeRecord, VolumeState } from '../../lib/domain/records.js';
import { createApiHandler } from '../../lib/api/handler.js';
import { startApiServer, type RunningApiServer } from '../../lib/api/node-server.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { runCli, type CliIo } from '../../cli/main.js';
import { ManualClock, sequentialIds } from './api-fixtures.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  json: unknown;
}

export interface SentRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: unknown;
}

export interface CliHarness {
  store: MemoryRecordStore;
  clock: ManualClock;
  /** The URL the API listens on. */
  url: string;
  /** Requests the CLI sent, as the fetch it used saw them. */
  sent: SentRequest[];
  /** Answers in place of the API while set (another server at the endpoint, API Gateway's own answers). */
  answer: ((request: { url: string; method: string }) => Promise<Response | undefined> | Response | undefined) | undefined;
  /** Runs the CLI; `io` replaces parts of what it is given (its environment, say). */
  cli(argv: string[], io?: Partial<CliIo>): Promise<CliRun>;
  setVolumeState(volumeId: string, state: VolumeState, extra?: Partial<VolumeRecord['status']>): Promise<unknown>;
}

export const volumeKey = (volumeId: string): RecordKey => ({ kind: 'volume', volumeId });

/** Registers the hooks that start the API for the file and give each test a fresh store. */
export function cliHarness(): CliHarness {
  let server: RunningApiServer;
  let handler: ReturnType<typeof createApiHandler>;
  const harness: CliHarness = {
    store: new MemoryRecordStore(),
    clock: new ManualClock(),
    url: '',
    sent: [],
    answer: undefined,
    async cli(argv, overrides = {}) {
      let stdout = '';
      let stderr = '';
      const io: CliIo = {
        stdout: (text) => void (stdout += text),
        stderr: (text) => void (stderr += text),
        env: { EBS_PROVISIONER_ENDPOINT: harness.url },
        isTTY: false,
        clock: harness.clock,
        credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }),
        fetch: async (input, init) => {
          const headers: Record<string, string> = {};
          new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
          const request = { url: String(input), method: init?.method ?? 'GET' };
          harness.sent.push({ ...request, headers, ...(typeof init?.body === 'string' ? { body: JSON.parse(init.body) as unknown } : {}) });
          return (await harness.answer?.(request)) ?? fetch(input, init);
        },
        ...overrides,
      };
      const code = await runCli(argv, io);
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      return { code, stdout, stderr, json };
    },
    setVolumeState: (volumeId, state, extra = {}) =>
      harness.store.update<VolumeRecord>(volumeKey(volumeId), {
        status: { state, attempts: 0, updatedAt: new Date(harness.clock.now()).toISOString(), ...extra },
        ...(['available', 'in-use', 'modifying', 'deleting'].includes(state) ? { ebsVolumeId: 'vol-0123456789abcdef0' } : {}),
      }),
  };
  beforeAll(async () => {
    server = await startApiServer((event, context) => handler(event, context));
    harness.url = server.url;
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    harness.store = new MemoryRecordStore();
    harness.clock = new ManualClock();
    handler = createApiHandler({ store: harness.store, clock: harness.clock, newVolumeId: sequentialIds() });
    harness.sent = [];
    harness.answer = undefined;
  });
  return harness;
}

/** What `ebs-provisioner <words> --help` prints: no request is sent, so it needs no API. */
export async function cliHelp(words: string[]): Promise<string> {
  let stdout = '';
  await runCli([...words, '--help'], {
    stdout: (text) => void (stdout += text),
    stderr: () => undefined,
    env: {},
    isTTY: false,
    clock: new ManualClock(),
    credentials: () => Promise.reject(new Error('no request is sent for --help')),
    fetch: () => Promise.reject(new Error('no request is sent for --help')),
  });
  return stdout;
}
