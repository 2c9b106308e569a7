/**
 * The memory backend's stream and queue as the pollers read them: each table change once, stamped
 * with the time it was made (a DynamoDB stream record's ApproximateCreationDateTime, in seconds),
 * and at most the messages a receive asks for, with SQS's receive count and sent time; and the
 * EBS model's zones, those of us-east-1.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryBackend } from '../../lib/local/memory-backend.js';
import { FakeClock } from '../../lib/memory/index.js';
import { volume } from './memory-store-fixtures.js';

const T = Date.parse('2026-01-01T00:00:00Z');

describe('the memory backend event sources', () => {
  it('hands each table change to one stream read, stamped with the second it was made', async () => {
    const clock = new FakeClock(T);
    const backend = createMemoryBackend({ clock, ownerTagValue: 'test' });
    await clock.advance(5_500);
    await backend.store.create(volume('data-1'));
    await clock.advance(60_000);
    const records = await backend.stream.read();
    expect(records.map((r) => [r.eventName, r.dynamodb?.ApproximateCreationDateTime])).toEqual([['INSERT', (T + 5_000) / 1000]]);
    expect(await backend.stream.read()).toEqual([]);
  });

  it("creates volumes in each of us-east-1's six availability zones, us-east-1a to us-east-1f", async () => {
    const backend = createMemoryBackend({ clock: new FakeClock(T), ownerTagValue: 'test' });
    for (const availabilityZone of ['us-east-1a', 'us-east-1b', 'us-east-1c', 'us-east-1d', 'us-east-1e', 'us-east-1f']) {
      const created = await backend.ebs.createVolume({ clientToken: availabilityZone, availabilityZone, spec: { sizeGiB: 8, volumeType: 'gp3' }, tags: {} });
      expect(created.availabilityZone).toBe(availabilityZone);
    }
  });

  it('receives at most the messages asked for, each with its receive count and sent time; a deleted one does not come back', async () => {
    const clock = new FakeClock(T);
    const backend = createMemoryBackend({ clock, ownerTagValue: 'test', visibilityTimeoutMs: 30_000 });
    const check = (volumeId: string) => ({ message: { op: 'check-volume' as const, key: { kind: 'volume' as const, volumeId } }, delaySeconds: 0 });
    await backend.queue.send([check('a'), check('b'), check('c')]);
    await clock.advance(1_000);
    const first = await backend.messages.receive(2);
    expect(first).toHaveLength(2);
    expect(first.map((r) => [r.attributes.ApproximateReceiveCount, r.attributes.SentTimestamp])).toEqual([
      ['1', String(T)],
      ['1', String(T)],
    ]);
    await backend.messages.delete([first[0]!]);
    await clock.advance(30_000);
    const again = await backend.messages.receive(10);
    // Visible longest first: c since it was sent, b since its visibility timeout ended.
    expect(again.map((r) => [JSON.parse(r.body).key.volumeId, r.attributes.ApproximateReceiveCount])).toEqual([
      ['c', '1'],
      ['b', '2'],
    ]);
  });
});
