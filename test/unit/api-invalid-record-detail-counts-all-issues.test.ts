/**
 * The 409 for a record that is not valid lists its first 100 issues in `errors`; its `detail`
 * gives the reasons as far as a status message holds, and counts every other issue of the record,
 * not only those `errors` lists.
 */
import { describe, expect, it } from 'vitest';
import { ApiProblem } from '../../lib/api/problem.js';
import { GP3, serviceWorld } from './api-fixtures.js';

const ISSUES = 105;

describe('the detail of a 409 for a record with more than 100 issues', () => {
  it('counts every issue it does not give', async () => {
    const { store, service } = serviceWorld();
    const tags = Object.fromEntries(Array.from({ length: ISSUES }, (_, i) => [`key${String(i).padStart(3, '0')}`, i]));
    store.putRaw({ kind: 'volume', volumeId: 'bad', spec: GP3, life: 'alive', generation: 1, observed: { sizeGiB: 20, volumeType: 'gp3', tags } });
    const problem = await service.getVolume('bad').catch((error: unknown) => error);
    expect(problem).toBeInstanceOf(ApiProblem);
    const { detail, errors } = problem as ApiProblem;
    expect(errors).toHaveLength(101);
    const given = detail.match(/record\.observed\.tags\.key\d{3}: /g)?.length ?? 0;
    const more = Number(/… \((\d+) more issues\)/.exec(detail)?.[1]);
    expect(given).toBeGreaterThan(0);
    expect(given + more).toBe(ISSUES);
  });
});
