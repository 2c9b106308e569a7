/**
 * A failure carrying HTTP status 500 itself is a server fault like any 5xx: answered 500
 * `internal`, safe to retry, and logged; only a status below 500 reads as the client's fault.
 */
import { describe, expect, it } from 'vitest';
import { createApiHandler } from '../../lib/api/handler.js';
import { localLambdaContext, toProxyEvent } from '../../lib/api/node-server.js';
import type { RecordKey } from '../../lib/domain/records.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { ManualClock } from './api-fixtures.js';

class FailingStore extends MemoryRecordStore {
  override get(_key: RecordKey): never {
    throw Object.assign(new Error('internal server error'), { statusCode: 500 });
  }
}

describe('a failure carrying status 500', () => {
  it('is 500 internal and logged, not a refused request', async () => {
    const log = new RecordingLog();
    const handler = createApiHandler({ store: new FailingStore(), clock: new ManualClock(), log });
    const event = toProxyEvent({ method: 'GET', url: '/volumes/data-01', headers: {} });
    const response = await handler(event, localLambdaContext(event.requestContext.requestId));
    expect(response.statusCode).toBe(500);
    expect(JSON.parse(response.body)).toMatchObject({ type: 'urn:ebs-provisioner:problem:internal', detail: 'the request failed unexpectedly; it is safe to retry' });
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'error', message: 'request failed' }));
    expect(log.entries).not.toContainEqual(expect.objectContaining({ message: 'request rejected' }));
  });
});
