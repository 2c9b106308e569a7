/**
 * An attachment's check brings its volume record in line with what the batch's describe shows,
 * as the volume's own check would: only when that changes something. A volume record that already
 * says what EC2 holds is not written (its version stays).
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, volumeOf, attachData1 } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: an attachment check finding its volume record already in line', () => {
  it('writes the attachment and leaves the volume record as it is', async () => {
    const h = harness();
    await attachData1(h);
    const attached = (await h.store.get(KEY)) as AttachmentRecord;
    expect(attached.status.state).toBe('attached');
    const volume = await volumeOf(h);
    expect(volume.status.state).toBe('in-use');

    // The attachment pending with its device kept (an attach whose answer was lost): its check adopts the attach EC2 made.
    const now = new Date(h.clock.now()).toISOString();
    await h.store.update<AttachmentRecord>(KEY, { status: { state: 'pending', attempts: 1, updatedAt: now, operationStartedAt: now } });
    h.queue.receive(100).forEach((r) => h.queue.delete(r.receiptHandle));
    await h.clock.advance(30_000);
    await h.executor.run(h.batchOf(h.op('check-attachment', KEY)));

    expect(((await h.store.get(KEY)) as AttachmentRecord).status.state).toBe('attached');
    expect((await volumeOf(h)).version).toBe(volume.version);
  });
});
