/**
 * docs/api.md: `force` defaults to `false`; a plain delete (no `force`) is not forced. EC2's forced
 * detach may lose data, so it is asked for only in so many words.
 */
import { describe, expect, it } from 'vitest';
import { apiHarness, GP3, INSTANCE_A } from './api-fixtures.js';

describe('DELETE of an attachment without force', () => {
  it('marks the attachment dying without forceDetach, in the answer and in the table', async () => {
    const api = apiHarness();
    await api.call({ method: 'POST', url: '/volumes', json: { volumeId: 'data-01', spec: GP3, attachTo: { instanceId: INSTANCE_A } } });
    const detached = await api.call({ method: 'DELETE', url: `/volumes/data-01/attachments/${INSTANCE_A}` });
    expect(detached.statusCode).toBe(202);
    expect(detached.json).toMatchObject({ life: 'dying' });
    expect(detached.json).not.toHaveProperty('forceDetach');
    const stored = await api.store.get({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A });
    expect(stored).toMatchObject({ life: 'dying' });
    expect(stored).not.toHaveProperty('forceDetach');
  });
});
