/** What the volume and instance commands send and print, beyond the paths the main CLI tests follow. */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { EXIT, WRITE_ATTEMPTS } from '../../cli/main.js';
import { INSTANCE_A, INSTANCE_B } from './api-fixtures.js';
import { cliHarness, volumeKey } from './cli-harness.js';

describe('CLI volume commands', () => {
  const h = cliHarness();
  const create = (...extra: string[]) => h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', ...extra]);

  it('asks for a multi-attach volume with --multi-attach', async () => {
    const run = await h.cli(['-o', 'json', 'volumes', 'create', '--az', 'us-east-1a', '--size', '100', '--type', 'io2', '--iops', '3000', '--multi-attach', '--id', 'shared-01']);
    expect(run.code).toBe(EXIT.ok);
    expect(h.sent[0]!.body).toEqual({ spec: { sizeGiB: 100, volumeType: 'io2', iops: 3000, availabilityZone: 'us-east-1a', multiAttach: true }, volumeId: 'shared-01' });
    expect((await h.store.get(volumeKey('shared-01')) as VolumeRecord).spec.multiAttach).toBe(true);
    // Without the option, nothing is said of it: the API's default (single attach) holds.
    await create();
    expect(h.sent.at(-1)!.body).not.toHaveProperty('spec.multiAttach');
  });

  it('sets IOPS and throughput with modify --iops and --throughput', async () => {
    await create();
    const run = await h.cli(['-o', 'json', 'volumes', 'modify', 'data-01', '--iops', '6000', '--throughput', '250']);
    expect(run.code).toBe(EXIT.ok);
    expect(h.sent.at(-1)).toMatchObject({ method: 'PATCH', body: { iops: 6000, throughput: 250 } });
    expect((await h.store.get(volumeKey('data-01')) as VolumeRecord).spec).toMatchObject({ iops: 6000, throughput: 250 });
  });

  it('prints the refusal of a modify of a volume that does not exist as it is, with the hint on ids', async () => {
    const run = await h.cli(['volumes', 'modify', 'data-02', '--iops', '6000']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toMatch(/^error: 404 .*data-02.*\nhint: ids are case-sensitive: /);
    expect(run.stderr).not.toContain('--clear-iops');
  });

  it('refuses modify --az of a created volume placed by --attach once, on --az, saying how it was placed', async () => {
    await h.cli(['volumes', 'create', '--attach', INSTANCE_A, '--size', '20', '--id', 'data-01']);
    const created = (await h.store.get(volumeKey('data-01'))) as VolumeRecord;
    // Placed by the instance it attaches to, no AZ of its own; then created by EC2.
    expect(created.spec).toStrictEqual({ sizeGiB: 20, volumeType: 'gp3', placementInstanceId: INSTANCE_A });
    h.store.putRaw({ ...created, ebsVolumeId: 'vol-0123456789abcdef0' });
    const run = await h.cli(['volumes', 'modify', 'data-01', '--az', 'us-east-1b']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe(
      'error: 400 The request is not valid: the change to volume data-01 is not allowed\n' +
        `  availabilityZone (--az): the volume's placement is fixed when the volume is created, and it was placed in the AZ of ${INSTANCE_A} (placementInstanceId): ` +
        'EC2 created it as vol-0123456789abcdef0, so delete the volume and create another to change it\n',
    );
    expect(((await h.store.get(volumeKey('data-01'))) as VolumeRecord).generation).toBe(created.generation);
  });

  it('grow gives up with a clear error, changing nothing, when the volume changes before every write', async () => {
    await create();
    let generation = 1;
    h.answer = async ({ method }) => {
      if (method === 'PATCH') await h.store.update<VolumeRecord>(volumeKey('data-01'), { generation: ++generation });
      return undefined;
    };
    const run = await h.cli(['volumes', 'grow', 'data-01', '--size', '40']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe(`error: volume data-01 was changed by another client during each of ${WRITE_ATTEMPTS} attempts; its size was not changed: run the command again\n`);
    expect((await h.store.get(volumeKey('data-01')) as VolumeRecord).spec.sizeGiB).toBe(20);
  });

  it('says when the one tag to remove is not on the volume', async () => {
    await create('--tag', 'team=db');
    const run = await h.cli(['volumes', 'tag', 'data-01', '--untag', 'teem']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr).toBe('volume data-01 had no tag teem; nothing removed for it\n');
    expect((await h.store.get(volumeKey('data-01')) as VolumeRecord).spec.tags).toEqual({ team: 'db' });
  });

  it('says an attach asked for again is already requested, changing nothing', async () => {
    await create();
    expect((await h.cli(['volumes', 'attach', 'data-01', INSTANCE_A])).stdout).toBe(`Attaching: data-01 → ${INSTANCE_A}: pending, alive\n`);
    const again = await h.cli(['volumes', 'attach', 'data-01', INSTANCE_A]);
    expect(again).toMatchObject({ code: EXIT.ok, stdout: `Already requested: data-01 → ${INSTANCE_A}: pending, alive\n` });
    expect(await h.store.get({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A })).toMatchObject({ generation: 1 });
  });

  it('retries a volume in error, printing it as it now is', async () => {
    await create();
    await h.setVolumeState('data-01', 'error', { code: 'InsufficientVolumeCapacity', message: 'no capacity in us-east-1a', attempts: 1 });
    const run = await h.cli(['volumes', 'retry', 'data-01']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toMatch(/^Retrying: data-01\n\nVolume:\s+data-01\nState:\s+pending\n/);
    expect(run.stdout).toContain('\n\nNo attachments.\n');
    expect((await h.store.get(volumeKey('data-01')) as VolumeRecord).status.state).toBe('pending');
  });

  it("says an instance has no attachments, and lists one whose record in the table is not valid with its state and reasons", async () => {
    const none = await h.cli(['instances', 'attachments', INSTANCE_B]);
    expect(none).toMatchObject({ code: EXIT.ok, stdout: 'No attachments.\n' });

    await create('--attach', INSTANCE_A);
    h.store.putRaw({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_B, life: 'alive', generation: 'one' });
    const listed = await h.cli(['instances', 'attachments', INSTANCE_B]);
    expect(listed.code).toBe(EXIT.ok);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^VOLUME\s+INSTANCE\s+STATE\s+LIFE\s+DEVICE\s+MESSAGE$/);
    expect(lines.slice(1)).toHaveLength(1);
    expect(lines[1]).toMatch(new RegExp(`^data-01\\s+${INSTANCE_B}\\s+error \\(InvalidRecord\\)\\s+-\\s+-\\s+generation: Invalid input: expected number, received string$`));
  });
});
