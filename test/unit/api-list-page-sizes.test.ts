/**
 * docs/api.md, `GET /volumes`: `limit` is a whole number from 1 to 100, default 50; a `cursor`
 * comes with a page when more remain, and following it reaches every volume once. An instance's
 * attachments are every one of them, in the order of `GET /volumes`.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, INSTANCE_A } from './api-fixtures.js';

const SPEC = { sizeGiB: 1, volumeType: 'gp3', availabilityZone: 'us-east-1a' };
const ids = (count: number) => Array.from({ length: count }, (_, i) => `data-${String(i).padStart(3, '0')}`);

type Page = { items: { volumeId: string }[]; cursor?: string };

async function withVolumes(count: number, attachTo?: string) {
  const api = apiHarness();
  // Created out of order: the list's order is its own, not the order of creation.
  for (const volumeId of ids(count).reverse()) {
    const created = await api.call({ method: 'POST', url: '/volumes', json: { volumeId, spec: SPEC, ...(attachTo ? { attachTo: { instanceId: attachTo } } : {}) } });
    expect(created.statusCode).toBe(201);
  }
  return api;
}

describe('page sizes of GET /volumes', () => {
  it('gives 50 volumes a page without a limit, with a cursor to the rest', async () => {
    const api = await withVolumes(120);
    const first = (await api.call({ method: 'GET', url: '/volumes' })).json as Page;
    expect(first.items).toHaveLength(50);
    expect(first.cursor).toBeDefined();
    const seen = [...first.items];
    let cursor = first.cursor;
    while (cursor !== undefined) {
      const page = (await api.call({ method: 'GET', url: `/volumes?cursor=${encodeURIComponent(cursor)}` })).json as Page;
      expect(page.items.length).toBeLessThanOrEqual(50);
      seen.push(...page.items);
      cursor = page.cursor;
    }
    expect(seen.map((volume) => volume.volumeId)).toEqual(ids(120));
  });

  it('gives up to 100 with limit=100, and refuses 101', async () => {
    const api = await withVolumes(101);
    const page = (await api.call({ method: 'GET', url: '/volumes?limit=100' })).json as Page;
    expect(page.items).toHaveLength(100);
    expect(page.cursor).toBeDefined();
    const refused = await api.call({ method: 'GET', url: '/volumes?limit=101' });
    expect(refused.statusCode).toBe(400);
    expect(refused.json).toMatchObject({ errors: [{ path: 'limit', message: 'must be a whole number from 1 to 100' }] });
  });

  it('lists every attachment of an instance, beyond a page of volumes, in the order of GET /volumes', async () => {
    const api = await withVolumes(60, INSTANCE_A);
    const listed = await api.call({ method: 'GET', url: `/instances/${INSTANCE_A}/attachments` });
    expect(listed.statusCode).toBe(200);
    const items = (listed.json as { items: { volumeId: string; instanceId: string }[] }).items;
    expect(items.map((item) => item.volumeId)).toEqual(ids(60));
    expect(items.every((item) => item.instanceId === INSTANCE_A)).toBe(true);
  });
});
