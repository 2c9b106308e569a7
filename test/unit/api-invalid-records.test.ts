/** What the API answers about a record written into the table that is not valid. */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import { VolumeService } from '../../lib/api/service.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { ManualClock } from './api-fixtures.js';

const GP3 = { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' };

async function problemOf(action: () => Promise<unknown>): Promise<ApiProblem> {
  const outcome = await action().catch((error: unknown) => error);
  if (outcome instanceof ApiProblem) return outcome;
  throw new Error(`expected an ApiProblem, got ${String(outcome)}`);
}

describe('a volume record that is not valid', () => {
  const setup = (raw: Record<string, unknown>) => {
    const store = new MemoryRecordStore();
    store.putRaw({ kind: 'volume', volumeId: 'bad', spec: GP3, life: 'alive', generation: 1, ...raw });
    return { store, service: new VolumeService({ store, clock: new ManualClock() }) };
  };

  it('names a field the record should not have by its own path (`record.colour`), and changes nothing', async () => {
    const { store, service } = setup({ colour: 'red' });
    const writes = store.writes;
    for (const request of [() => service.getVolume('bad'), () => service.patchVolume('bad', { sizeGiB: 40 })]) {
      const problem = await problemOf(request);
      expect([problem.status, problem.kind]).toEqual([409, 'invalid-record']);
      expect(problem.errors).toEqual([{ path: 'record.colour', message: 'is not a known field' }]);
    }
    expect(store.writes).toBe(writes);
  });

  it('lists its first 100 issues and counts the rest', async () => {
    const tags = Object.fromEntries(Array.from({ length: 105 }, (_, i) => [`key${String(i).padStart(3, '0')}`, i]));
    const { service } = setup({ observed: { sizeGiB: 20, volumeType: 'gp3', tags } });
    const problem = await problemOf(() => service.getVolume('bad'));
    expect(problem.status).toBe(409);
    expect(problem.errors).toHaveLength(101);
    expect(problem.errors[0]).toEqual({ path: 'record.observed.tags.key000', message: expect.any(String) });
    expect(problem.errors[99]?.path).toBe('record.observed.tags.key099');
    expect(problem.errors[100]).toEqual({ path: 'record', message: '5 more issues' });
  });
});
