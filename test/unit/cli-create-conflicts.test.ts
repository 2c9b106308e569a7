/** What `volumes create` says after the API's conflicts: a volume that exists with another spec, or an attach refused. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness } from './cli-harness.js';

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
