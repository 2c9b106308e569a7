/** A server fault that carries an HTTP status of its own (5xx) is answered as the internal error it is, and logged. */
import { describe, expect, it } from 'vitest';
import { createApiHandler } from '../../lib/api/handler.js';
import { localLambdaContext, toProxyEvent } from '../../lib/api/node-server.js';
import type { RecordKey } from '../../lib/domain/records.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { ManualClock } from './api-fixtures.js';

class UnavailableStore extends MemoryRecordStore {
  override get(_key: RecordKey): never {
    throw Object.assign(new Error('the table is unavailable'), { statusCode: 503 });
  }
}

describe('a failure carrying a 5xx status', () => {
  it('is 500 internal, safe to retry, and logged with its cause', async () => {
    const log = new RecordingLog();
    const handler = createApiHandler({ store: new UnavailableStore(), clock: new ManualClock(), log });
    const event = toProxyEvent({ method: 'GET', url: '/volumes/data-01', headers: {} });
    const response = await handler(event, localLambdaContext(event.requestContext.requestId));
    expect(response.statusCode).toBe(500);
    const problem = JSON.parse(response.body) as { type: string; detail: string };
    expect(problem.type).toBe('urn:ebs-provisioner:problem:internal');
    expect(problem.detail).toBe('the request failed unexpectedly; it is safe to retry');
    expect(log.entries).toContainEqual(
      expect.objectContaining({ level: 'error', message: 'request failed', attributes: expect.objectContaining({ error: expect.objectContaining({ message: 'the table is unavailable' }) }) }),
    );
  });
});
