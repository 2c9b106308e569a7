/**
 * An attachment recorded attached that a check finds detached outside, EC2 listing the volume's
 * attachment to another instance as `detached`: that instance holds the volume nowhere, so the
 * attachment is attached again, with no wait for the volume to be freed shown in its status.
 */
import { describe, expect, it } from 'vitest';
import type { AttachmentRecord } from '../../lib/domain/records.js';
import { INSTANCE, OTHER_INSTANCE, attachData1, attachmentKey, executorOver, harness, providerOver } from './engine-fixtures.js';

const KEY = attachmentKey('data-1');

describe('executor: an attached attachment detached outside while EC2 lists another instance detached', () => {
  it('is attached again, no wait for another instance shown', async () => {
    const h = harness();
    await attachData1(h);
    const attached = (await h.store.get(KEY)) as AttachmentRecord;
    expect(attached.status.state).toBe('attached');
    const [volume] = await h.ebs.findOwnedVolumes('data-1');
    await h.ebs.detachVolume({ ebsVolumeId: volume!.ebsVolumeId, instanceId: INSTANCE });
    await h.clock.advance(600_000);

    const provider = providerOver(h.ebs, {
      describeVolumes: async (ids) =>
        (await h.ebs.describeVolumes(ids)).map((v) => ({ ...v, attachments: [...v.attachments, { instanceId: OTHER_INSTANCE, device: '/dev/sdf', state: 'detached' as const }] })),
    });
    await executorOver(h, { provider }).run(h.batchOf(h.op('check-attachment', KEY)));

    const checked = (await h.store.get(KEY)) as AttachmentRecord;
    expect(checked.status.state).toBe('pending');
    expect(checked.status.message).toContain('attaching again');
    expect(checked.status.code).toBeUndefined();
    expect(checked.status.nextAttemptAt).toBeUndefined();
    expect(checked.device).toBeUndefined();
  });
});
