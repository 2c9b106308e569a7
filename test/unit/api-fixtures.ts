/** Shared test fixtures for the HTTP API and CLI tests. */
import type { APIGatewayProxyResult } from 'aws-lambda';
import type { Clock } from '../../lib/engine/ports.js';
import { createApiHandler, type ApiHandler } from '../../lib/api/handler.js';
import { localLambdaContext, toProxyEvent, type ProxyRequest } from '../../lib/api/node-server.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';

export const INSTANCE_A = 'i-0aaaaaaaaaaaaaaa1';
export const INSTANCE_B = 'i-0bbbbbbbbbbbbbbb2';

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
