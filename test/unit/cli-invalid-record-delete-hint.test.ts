/** A record the API finds not valid but open to a delete: the CLI names its own command for that delete. */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness, volumeKey } from './cli-harness.js';

describe('CLI on an invalid record that may be deleted as it is', () => {
  const h = cliHarness();
  const create = () => h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);

  it("prints the API's detail as it is, then a hint naming volumes delete", async () => {
    await create();
    const stored = (await h.store.get(volumeKey('data-01'))) as VolumeRecord;
    h.store.putRaw({ ...stored, spec: { ...stored.spec, sizeGiB: 70_000 } });
    const run = await h.cli(['volumes', 'get', 'data-01']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toContain('or delete the volume (DELETE /volumes/data-01): its faults are all ones a delete does not use\n');
    expect(run.stderr.endsWith("\nhint: the volume's record may be deleted as it is: `ebs-provisioner volumes delete data-01`\n"), run.stderr).toBe(true);
    // The command named does it.
    expect((await h.cli(['volumes', 'delete', 'data-01'])).code).toBe(EXIT.ok);
    expect(await h.store.get(volumeKey('data-01'))).toMatchObject({ life: 'dying' });
  });

  it('names volumes detach for an attachment, also when the request named it through another command', async () => {
    await create();
    h.store.putRaw({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive', requestedDevice: '/dev/xvdea', generation: 1 });
    const run = await h.cli(['volumes', 'retry-attachment', 'data-01', INSTANCE_A]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toContain(`(DELETE /volumes/data-01/attachments/${INSTANCE_A})`);
    expect(run.stderr.endsWith(`\nhint: the attachment's record may be deleted as it is: \`ebs-provisioner volumes detach data-01 ${INSTANCE_A}\`\n`), run.stderr).toBe(true);
    expect((await h.cli(['volumes', 'detach', 'data-01', INSTANCE_A])).code).toBe(EXIT.ok);
  });

  it('names the command when a wait ends on such a record, and gives no hint for one a delete would not take', async () => {
    await create();
    const stored = (await h.store.get(volumeKey('data-01'))) as VolumeRecord;
    h.store.putRaw({ ...stored, spec: { ...stored.spec, sizeGiB: 70_000 } });
    const waited = await h.cli(['wait', 'data-01', '--state', 'available', '--timeout', '0']);
    expect(waited.code).toBe(EXIT.errorState);
    expect(waited.stderr.endsWith("\nhint: the volume's record may be deleted as it is: `ebs-provisioner volumes delete data-01`\n"), waited.stderr).toBe(true);

    h.store.putRaw({ ...stored, generation: 'one' });
    const refused = await h.cli(['volumes', 'get', 'data-01']);
    expect(refused.code).toBe(EXIT.failed);
    expect(refused.stderr).toContain('Correct it in the table, or remove it there\n');
    expect(refused.stderr).not.toContain('hint:');
  });
});
