/** What `volumes create --id` hints at for each field a volume that exists differs in: the command that changes it, or another id. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

const SNAPSHOT = 'snap-0123456789abcdef0';

describe('CLI volumes create --id for a volume that differs', () => {
  const h = cliHarness();
  const create = (...extra: string[]) => h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', ...extra]);
  const hintOf = (run: { stderr: string }) => run.stderr.trim().split('\n').at(-1);
  /** The requests a run sent, as method and path. */
  const sentBy = async (run: () => Promise<unknown>) => {
    h.sent = [];
    await run();
    return h.sent.map((request) => `${request.method} ${new URL(request.url).pathname}`);
  };

  it('hints at another id alone for encryption, a KMS key or Multi-Attach, which no command changes, reading nothing', async () => {
    expect((await create()).code).toBe(EXIT.ok);
    let run: Awaited<ReturnType<typeof h.cli>> | undefined;
    expect(await sentBy(async () => (run = await create('--encrypted', '--size', '30')))).toEqual(['POST /volumes']);
    expect(run!.code).toBe(EXIT.failed);
    expect(run!.stderr).toContain('  spec.encrypted (--encrypted): is true here, not set on the volume\n');
    expect(hintOf(run!)).toBe('hint: --id data-01 names a volume that exists and differs in its encryption, which no command here changes: give another id for a new volume');
    const kms = await create('--encrypted', '--kms-key', 'alias/ebs');
    expect(hintOf(kms)).toBe('hint: --id data-01 names a volume that exists and differs in its encryption and KMS key, which no command here changes: give another id for a new volume');
    const multiAttach = await create('--type', 'io2', '--iops', '3000', '--multi-attach');
    expect(hintOf(multiAttach)).toBe('hint: --id data-01 names a volume that exists and differs in its Multi-Attach setting, which no command here changes: give another id for a new volume');
  });

  it('hints at volumes tag for other tags, beside modify for another size, and the hint does what it says', async () => {
    expect((await create('--tag', 'team=data')).code).toBe(EXIT.ok);
    const tags = await create('--tag', 'team=web');
    expect(tags.code).toBe(EXIT.failed);
    expect(hintOf(tags)).toBe(
      'hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with `ebs-provisioner volumes tag data-01`',
    );
    const both = await create('--tag', 'team=web', '--size', '30');
    expect(hintOf(both)).toBe(
      'hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with `ebs-provisioner volumes modify data-01` and `ebs-provisioner volumes tag data-01`',
    );
    expect((await h.cli(['volumes', 'tag', 'data-01', '--tag', 'team=web'])).code).toBe(EXIT.ok);
    expect((await h.cli(['volumes', 'modify', 'data-01', '--size', '30'])).code).toBe(EXIT.ok);
    const again = await create('--tag', 'team=web', '--size', '30');
    expect(again.code).toBe(EXIT.ok);
    expect(again.stdout).toContain('Already exists (same spec): data-01');
  });

  it('hints at modify --snapshot while the volume is not created, and the hint does what it says', async () => {
    expect((await create()).code).toBe(EXIT.ok);
    let run: Awaited<ReturnType<typeof h.cli>> | undefined;
    expect(await sentBy(async () => (run = await create('--snapshot', SNAPSHOT)))).toEqual(['POST /volumes', 'GET /volumes/data-01']);
    expect(hintOf(run!)).toBe(
      `hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with \`ebs-provisioner volumes modify data-01\` (\`--snapshot ${SNAPSHOT}\` sets its snapshot as asked: it is not created yet)`,
    );
    const placed = await h.cli(['volumes', 'create', '--az', 'us-east-1b', '--size', '20', '--id', 'data-01', '--snapshot', SNAPSHOT]);
    expect(hintOf(placed)).toContain(`(\`--az us-east-1b --snapshot ${SNAPSHOT}\` places it and sets its snapshot as asked: it is not created yet)`);
    expect((await h.cli(['volumes', 'modify', 'data-01', '--snapshot', SNAPSHOT])).code).toBe(EXIT.ok);
    expect((await create('--snapshot', SNAPSHOT)).stdout).toContain('Already exists (same spec): data-01');
  });

  it('hints at another id alone for a snapshot once EC2 made the volume, and for one asked without the snapshot the volume has', async () => {
    expect((await create()).code).toBe(EXIT.ok);
    await h.setVolumeState('data-01', 'available');
    const made = await create('--snapshot', SNAPSHOT);
    expect(made.code).toBe(EXIT.failed);
    expect(hintOf(made)).toBe(
      "hint: --id data-01 names a volume that exists, made without a snapshot for good (a volume's snapshot is fixed once EC2 is asked to create it): give another id for a new volume",
    );
    // As the hint says: the API refuses the change.
    expect((await h.cli(['volumes', 'modify', 'data-01', '--snapshot', SNAPSHOT])).stderr).toContain('is fixed when the volume is created');
    const both = await h.cli(['volumes', 'create', '--az', 'us-east-1b', '--size', '20', '--id', 'data-01', '--snapshot', SNAPSHOT]);
    expect(hintOf(both)).toBe(
      "hint: --id data-01 names a volume that exists, placed in us-east-1a and made without a snapshot for good (a volume's placement and snapshot are fixed once EC2 is asked to create it): give another id for a new volume",
    );

    expect((await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-02', '--snapshot', SNAPSHOT])).code).toBe(EXIT.ok);
    const cleared = await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-02']);
    expect(hintOf(cleared)).toBe('hint: --id data-02 names a volume that exists and differs in its snapshot, which no command here changes: give another id for a new volume');
  });
});
