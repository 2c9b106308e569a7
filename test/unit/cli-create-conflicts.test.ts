/** What `volumes create` says after the API's conflicts: a volume that exists with another spec, or an attach refused. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A, INSTANCE_B } from './api-fixtures.js';
import { cliHarness, volumeKey } from './cli-harness.js';
import type { VolumeRecord } from '../../lib/domain/records.js';

describe('CLI volumes create after a conflict', () => {
  const h = cliHarness();
  const createAttached = (...extra: string[]) => h.cli(['volumes', 'create', '--size', '20', '--attach', INSTANCE_A, '--device', '/dev/sdf', ...extra]);

  it('hints at another id, or at modify, for an --id that names a volume with another spec', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    const run = await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '30', '--id', 'data-01']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      'hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with `ebs-provisioner volumes modify data-01`',
    );
  });

  const detachFirst = (id: string, instanceId: string) =>
    `hint: --id ${id} names a volume that cannot also be attached to ${instanceId}: detach it from another instance first ` +
    `(\`ebs-provisioner volumes detach ${id} <instanceId>\`; \`ebs-provisioner volumes get ${id}\` shows its attachments), or create another volume with another --id`;

  it('hints at detaching first, or another volume, for an --id that names the same volume attached to another instance', async () => {
    // Placed by --az: --attach places nothing, so the only difference --attach can make is the attach refused.
    expect((await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A])).code).toBe(EXIT.ok);
    const run = await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_B]);
    expect(run.code).toBe(EXIT.failed);
    expect(run.stderr).toBe(
      `error: 409 Conflict with the current state: volume data-01 already has an attachment to ${INSTANCE_A} (pending) and is not multi-attach; detach it first\n` +
        `  attachTo.instanceId (--attach): the volume is not multi-attach and already has an attachment to ${INSTANCE_A}\n` +
        `${detachFirst('data-01', INSTANCE_B)}\n`,
    );
  });

  it('tells an attach refused from a placement elsewhere when --attach alone places the volume, by the volume as it reads', async () => {
    // Placed in the AZ of A, and attached to B: a create placed and attached by A is the same volume, its attach refused.
    expect((await h.cli(['volumes', 'create', '--near', INSTANCE_A, '--size', '20', '--id', 'data-01'])).code).toBe(EXIT.ok);
    expect((await h.cli(['volumes', 'attach', 'data-01', INSTANCE_B])).code).toBe(EXIT.ok);
    const refused = await h.cli(['volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A]);
    expect(refused.code).toBe(EXIT.failed);
    expect(refused.stderr).toContain(`  attachTo.instanceId (--attach): the volume is not multi-attach and already has an attachment to ${INSTANCE_B}\n`);
    expect(refused.stderr.trim().split('\n').at(-1)).toBe(detachFirst('data-01', INSTANCE_A));
    // Placed and attached by B, it is another volume than the one data-01 names: another id, as for any other difference.
    const elsewhere = await h.cli(['volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_B]);
    expect(elsewhere.code).toBe(EXIT.failed);
    expect(elsewhere.stderr).toContain(`  attachTo.instanceId (--attach): places the volume in the AZ of ${INSTANCE_B}, but the volume is placed in the AZ of ${INSTANCE_A}\n`);
    expect(elsewhere.stderr.trim().split('\n').at(-1)).toBe(
      `hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with \`ebs-provisioner volumes modify data-01\` (\`--near ${INSTANCE_B}\` places it as asked: it is not created yet)`,
    );
  });

  /** The requests a run sent, as method and path. */
  const sentBy = async (run: () => Promise<unknown>) => {
    h.sent = [];
    await run();
    return h.sent.map((request) => `${request.method} ${new URL(request.url).pathname}`);
  };

  it('hints at modify with the placement asked for while the volume is not created, reading it once, and the hint does what it says', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    const create = ['volumes', 'create', '--az', 'us-east-1b', '--size', '20', '--id', 'data-01'];
    let run: Awaited<ReturnType<typeof h.cli>> | undefined;
    expect(await sentBy(async () => (run = await h.cli(create)))).toEqual(['POST /volumes', 'GET /volumes/data-01']);
    expect(run!.code).toBe(EXIT.failed);
    expect(run!.stderr).toContain('  spec.availabilityZone (--az): is us-east-1b here, us-east-1a on the volume\n');
    expect(run!.stderr.trim().split('\n').at(-1)).toBe(
      'hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with `ebs-provisioner volumes modify data-01` (`--az us-east-1b` places it as asked: it is not created yet)',
    );
    expect((await h.cli(['volumes', 'modify', 'data-01', '--az', 'us-east-1b'])).code).toBe(EXIT.ok);
    const again = await h.cli(create);
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toContain('Already exists (same spec): data-01');
  });

  const fixedHint = (where: string) =>
    `hint: --id data-01 names a volume that exists, placed ${where} for good (a volume's placement is fixed once EC2 is asked to create it): give another id for a new volume`;

  it('hints at another id alone, not modify, for a placement elsewhere once EC2 made the volume or was asked to', async () => {
    await h.cli(['volumes', 'create', '--near', INSTANCE_A, '--size', '20', '--id', 'data-01']);
    // Asked of EC2 in the AZ the executor resolved (recorded with the request), then made.
    const spec = { sizeGiB: 20, volumeType: 'gp3' as const, placementInstanceId: INSTANCE_A };
    await h.store.update<VolumeRecord>(volumeKey('data-01'), {
      createRequest: { clientToken: 'token-1', availabilityZone: 'us-east-1c', spec },
      availabilityZone: 'us-east-1c',
      observedGeneration: 1,
      status: { state: 'creating', attempts: 0, updatedAt: new Date(h.clock.now()).toISOString() },
    });
    for (const [state, where] of [['creating', 'in us-east-1c'], ['available', 'in us-east-1c']] as const) {
      if (state === 'available') await h.setVolumeState('data-01', 'available');
      let run: Awaited<ReturnType<typeof h.cli>> | undefined;
      const create = ['volumes', 'create', '--az', 'us-east-1b', '--size', '20', '--id', 'data-01'];
      expect(await sentBy(async () => (run = await h.cli(create))), state).toEqual(['POST /volumes', 'GET /volumes/data-01']);
      expect(run!.code, state).toBe(EXIT.failed);
      expect(run!.stderr.trim().split('\n').at(-1), state).toBe(fixedHint(where));
      // As the hint says: the API refuses the move.
      const moved = await h.cli(['volumes', 'modify', 'data-01', '--az', 'us-east-1b']);
      expect(moved.code, state).toBe(EXIT.failed);
      expect(moved.stderr, state).toContain('is fixed when the volume is created');
    }
    // A size difference beside it: modify cannot make the volume asked for either.
    const both = await h.cli(['volumes', 'create', '--near', INSTANCE_B, '--size', '30', '--id', 'data-01']);
    expect(both.stderr.trim().split('\n').at(-1)).toBe(fixedHint('in us-east-1c'));
  });

  it('hints at another id alone for an --attach placing the volume elsewhere than EC2 made it, named by its instance when no AZ shows', async () => {
    await h.cli(['volumes', 'create', '--near', INSTANCE_A, '--size', '20', '--id', 'data-01']);
    await h.setVolumeState('data-01', 'available');
    let run: Awaited<ReturnType<typeof h.cli>> | undefined;
    // One read tells both the placement from an attach refused and whether the placement may still change.
    expect(await sentBy(async () => (run = await h.cli(['volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_B])))).toEqual([
      'POST /volumes',
      'GET /volumes/data-01',
    ]);
    expect(run!.code).toBe(EXIT.failed);
    expect(run!.stderr).toContain(`  attachTo.instanceId (--attach): places the volume in the AZ of ${INSTANCE_B}, but the volume is placed in the AZ of ${INSTANCE_A}\n`);
    expect(run!.stderr.trim().split('\n').at(-1)).toBe(fixedHint(`in the AZ of ${INSTANCE_A}`));
  });

  it('reads nothing for a size or type difference, and gives no hint on a placement difference when the volume cannot be read', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    let run: Awaited<ReturnType<typeof h.cli>> | undefined;
    expect(await sentBy(async () => (run = await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '30', '--type', 'io2', '--iops', '3000', '--id', 'data-01'])))).toEqual([
      'POST /volumes',
    ]);
    expect(run!.stderr.trim().split('\n').at(-1)).toBe(
      'hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with `ebs-provisioner volumes modify data-01`',
    );
    h.answer = (request) => (request.method === 'GET' ? new Response('{"message": "Internal server error"}', { status: 500 }) : undefined);
    const unread = await h.cli(['volumes', 'create', '--az', 'us-east-1b', '--size', '20', '--id', 'data-01']);
    expect(unread.code).toBe(EXIT.failed);
    expect(unread.stderr).toBe('error: 409 Conflict with the current state: volume data-01 already exists and differs from this request\n  spec.availabilityZone (--az): is us-east-1b here, us-east-1a on the volume\n');
  });

  it('gives no such hint when the attach --attach asks for is refused: the device is held, whatever the id', async () => {
    expect((await createAttached('--id', 'data-01')).code).toBe(EXIT.ok);
    for (const id of [[], ['--id', 'data-02']]) {
      const run = await createAttached(...id);
      expect(run.code, id.join(' ')).toBe(EXIT.failed);
      expect(run.stderr, id.join(' ')).toBe(
        `error: 409 Conflict with the current state: device /dev/sdf on ${INSTANCE_A} is held by volume data-01 (pending); choose another device or leave it out\n` +
          `  attachTo.device (--device): is held by volume data-01 on ${INSTANCE_A}\n`,
      );
    }
    // Nothing was made of the refused requests.
    expect((await h.cli(['volumes', 'list'])).stdout.trim().split('\n').slice(1).map((line) => line.split(' ')[0])).toEqual(['data-01']);
  });
});
