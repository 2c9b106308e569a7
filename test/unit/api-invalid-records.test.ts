/** What the API answers about a record written into the table that is not valid. */
import { describe, expect, it } from 'vitest';
import { GP3, problemOf, serviceWorld } from './api-fixtures.js';

describe('a volume record that is not valid', () => {
  const setup = (raw: Record<string, unknown>) => {
    const { store, service } = serviceWorld();
    store.putRaw({ kind: 'volume', volumeId: 'bad', spec: GP3, life: 'alive', generation: 1, ...raw });
    return { store, service };
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
