/** Shared test fixtures for the HTTP API and CLI tests. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Clock } from '../../lib/engine/ports.js';
import { createApiHandler, type ApiHandler } from '../../lib/api/handler.js';
import { localLambdaContext, toProxyEvent, type ProxyRequest } from '../../lib/api/node-server.js';
import { ApiProblem } from '../../lib/api/problem.js';
import { VolumeService, type VolumeServiceDeps } from '../../lib/api/service.js';
import type { VolumeSpec } from '../../lib/domain/records.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';

export const INSTANCE_A = 'i-0aaaaaaaaaaaaaaa1';
export const INSTANCE_B = 'i-0bbbbbbbbbbbbbbb2';

/** A 20 GiB gp3 volume in us-east-1a. */
export const GP3: VolumeSpec = { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' };

/**
 * A clock whose `sleep` moves time itself instead of waiting for the test to advance it (as
 * FakeClock does): suited to code that does real I/O between sleeps, like the CLI polling over HTTP.
 */
export class ManualClock implements Clock {
  /** Runs after every sleep: lets a test move the world on while the code under test waits. */
  onSleep?: (now: number) => Promise<void> | void;
  constructor(private time = Date.parse('2026-01-01T00:00:00.000Z')) {}
  now(): number {
    return this.time;
  }
  async sleep(ms: number): Promise<void> {
    this.time += ms;
    await this.onSleep?.(this.time);
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

/** Ids `vol-rec-1`, `vol-rec-2`, … for volumes created without one. */
export function sequentialIds(prefix = 'vol-rec-'): () => string {
  let next = 1;
  return () => `${prefix}${next++}`;
}

/** The volume service over an empty memory table on a ManualClock, with the other dependencies `deps` gives. */
export function serviceWorld(deps: Omit<VolumeServiceDeps, 'store' | 'clock'> = {}) {
  const store = new MemoryRecordStore();
  const clock = new ManualClock();
  return { store, clock, service: new VolumeService({ store, clock, ...deps }) };
}

/** Runs `action` and returns the ApiProblem it threw (failing the test if it did not). */
export async function problemOf(action: () => Promise<unknown>): Promise<ApiProblem> {
  try {
    await action();
  } catch (error) {
    if (error instanceof ApiProblem) return error;
    throw error;
  }
  throw new Error('expected an ApiProblem');
}

export interface ApiHarness {
  store: MemoryRecordStore;
  clock: ManualClock;
  handler: ApiHandler;
  /** Sends a synthesized API Gateway REST proxy event through the handler. */
  call(request: ProxyRequest & { json?: unknown }): Promise<ApiResponse>;
}

export interface ApiResponse extends APIGatewayProxyResult {
  json: unknown;
  contentType: string | undefined;
}

export function apiHarness(): ApiHarness {
  const store = new MemoryRecordStore();
  const clock = new ManualClock();
  const handler = createApiHandler({ store, clock, newVolumeId: sequentialIds() });
  return {
    store,
    clock,
    handler,
    async call(request) {
      const headers = { ...request.headers };
      let body = request.body;
      if (request.json !== undefined) {
        body = JSON.stringify(request.json);
        headers['Content-Type'] ??= 'application/json';
      }
      const event = toProxyEvent({ ...request, headers, body });
      const result = await handler(event, localLambdaContext(event.requestContext.requestId));
      const contentType = Object.entries(result.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
      return { ...result, json: result.body ? JSON.parse(result.body) : undefined, contentType: contentType as string | undefined };
    },
  };
}
