import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { type RecordChange } from '../../lib/engine/watcher.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { attachmentKey, harness, newAttachment, newVolume } from './engine-fixtures.js';
import { modify } from './watcher-fixtures.js';

describe('Watcher: a retry of an attachment whose volume record is invalid', () => {
  it('does not retry an attachment in error that may hold its volume while the volume record does not parse: it is left as it is, and says why in the log', async () => {
    const log = new RecordingLog();
    const h = harness({ log });
    const at = new Date(h.clock.now()).toISOString();
    h.store.putRaw({ ...newVolume('data-1'), spec: { sizeGiB: -1, volumeType: 'gp3' } });
    // Its attach failed with a device allocated: it may be attached.
    const failed: AttachmentRecord = newAttachment('data-1', { device: '/dev/sdf', status: { state: 'error', code: 'IncorrectState', message: 'gave up', attempts: 3, updatedAt: at } });
    h.store.putRaw(failed);
    const retried: AttachmentRecord = { ...failed, generation: 2 };
    h.store.putRaw(retried);
    const change: RecordChange = modify(failed, retried);
    expect(await h.watcher.handle([change])).toEqual({ failedChangeIds: [] });
    expect(await h.store.get(attachmentKey('data-1'))).toEqual(retried);
    expect(h.queued()).toEqual([]);
    expect(log.entries.filter((entry) => entry.level === 'warn').map((entry) => entry.message)).toEqual(['volume record invalid; its attachment is left as it is until the record is put right']);
  });
});
