/**
 * `POST /volumes/{volumeId}/retry` on a volume in `error`: 202, the retry under way, with the
 * volume as it now stands (back to `pending`, its attempts reset, `generation` bumped) and its ETag.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, GP3 } from './api-fixtures.js';

describe('a retry of a volume in error', () => {
  it('answers 202 with the volume back to pending, its generation bumped, and its entity tag', async () => {
    const api = apiHarness();
    const at = new Date(api.clock.now()).toISOString();
    api.store.putRaw({
      kind: 'volume',
      volumeId: 'data-01',
      spec: GP3,
      life: 'alive',
      generation: 1,
      createdAt: at,
      status: { state: 'error', code: 'InsufficientVolumeCapacity', message: 'no capacity', attempts: 3, updatedAt: at },
    });

    const answer = await api.call({ method: 'POST', url: '/volumes/data-01/retry' });
    expect(answer.statusCode).toBe(202);
    expect(answer.json).toMatchObject({ volumeId: 'data-01', generation: 2, status: { state: 'pending', attempts: 0 } });
    const read = await api.call({ method: 'GET', url: '/volumes/data-01' });
    expect(answer.headers?.ETag).toBe(read.headers?.ETag);
  });
});
