/**
 * docs/api.md (Status) and openapi.json: a status `message` is at most 2000 characters, a longer
 * one ending with `…`. The system writes none longer; a record written into the table by hand may
 * hold one of up to 8000 (the watcher takes it as valid): the API shows it shortened as the system
 * shortens its own, and leaves the record as it is.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, ProvisionerRecord, VolumeRecord } from '../../lib/domain/records.js';
import { MAX_STATUS_MESSAGE_CHARS } from '../../lib/domain/status-message.js';
import { apiHarness, INSTANCE_A } from './api-fixtures.js';

const LONG = 'EC2 said: '.padEnd(5000, 'x');

function written(api: ReturnType<typeof apiHarness>) {
  const status = { state: 'error' as const, code: 'SomeError', message: LONG, attempts: 8, updatedAt: new Date(api.clock.now()).toISOString() };
  const volume: VolumeRecord = {
    kind: 'volume',
    volumeId: 'data-01',
    spec: { sizeGiB: 1, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
    life: 'alive',
    generation: 1,
    version: 1,
    status,
    createdAt: status.updatedAt,
  };
  const attachment: AttachmentRecord = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive', generation: 1, version: 1, status, createdAt: status.updatedAt };
  api.store.putRaw(volume as ProvisionerRecord);
  api.store.putRaw(attachment as ProvisionerRecord);
}

const shown = (message: unknown) => {
  expect(typeof message).toBe('string');
  const text = message as string;
  expect(text.length).toBeLessThanOrEqual(MAX_STATUS_MESSAGE_CHARS);
  expect(text.endsWith('…')).toBe(true);
  expect(LONG.startsWith(text.slice(0, -1))).toBe(true);
};

describe('a status message longer than the API shows', () => {
  it('is shown within 2000 characters, ending with …, by every answer that shows the record; the record keeps it', async () => {
    const api = apiHarness();
    written(api);

    const one = (await api.call({ method: 'GET', url: '/volumes/data-01' })).json as { status: { message: string }; attachments: { status: { message: string } }[] };
    shown(one.status.message);
    shown(one.attachments[0]!.status.message);
    const listed = (await api.call({ method: 'GET', url: '/volumes' })).json as { items: { status: { message: string } }[] };
    shown(listed.items[0]!.status.message);
    const ofInstance = (await api.call({ method: 'GET', url: `/instances/${INSTANCE_A}/attachments` })).json as { items: { status: { message: string } }[] };
    shown(ofInstance.items[0]!.status.message);

    expect((await api.store.get({ kind: 'volume', volumeId: 'data-01' }))?.status.message).toBe(LONG);
  });

  it('within 2000 characters, is shown as it is', async () => {
    const api = apiHarness();
    written(api);
    const message = 'y'.repeat(MAX_STATUS_MESSAGE_CHARS);
    const stored = (await api.store.get({ kind: 'volume', volumeId: 'data-01' }))!;
    api.store.putRaw({ ...stored, status: { ...stored.status, message } } as ProvisionerRecord);
    expect(((await api.call({ method: 'GET', url: '/volumes/data-01' })).json as { status: { message: string } }).status.message).toBe(message);
  });
});
