/** `volumes create --id` with JSON output: the problem document alone on stderr, and no request beyond the create. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI volumes create --id for a volume that differs, with -o json', () => {
  const h = cliHarness();
  const create = (...extra: string[]) => h.cli(['-o', 'json', 'volumes', 'create', '--size', '20', '--id', 'data-01', ...extra]);
  /** The requests a run sent, as method and path. */
  const sentBy = async (run: () => Promise<unknown>) => {
    h.sent = [];
    await run();
    return h.sent.map((request) => `${request.method} ${new URL(request.url).pathname}`);
  };

  it.each([
    ['a placement', ['--az', 'us-east-1b'], 'spec.availabilityZone'],
    ['a snapshot', ['--az', 'us-east-1a', '--snapshot', 'snap-0123456789abcdef0'], 'spec.snapshotId'],
    ['an attachment elsewhere', ['--attach', 'i-0123456789abcdef0'], 'attachTo.instanceId'],
  ])('prints the conflict for %s as its problem document and reads no volume for a hint it would not print', async (_, extra, path) => {
    expect((await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', 'i-0fedcba9876543210'])).code).toBe(EXIT.ok);
    let run: Awaited<ReturnType<typeof h.cli>> | undefined;
    expect(await sentBy(async () => (run = await create(...extra)))).toEqual(['POST /volumes']);
    expect(run!.code).toBe(EXIT.failed);
    expect(run!.stdout).toBe('');
    const problem = JSON.parse(run!.stderr) as { errors: { path: string }[] };
    expect(problem.errors.map((issue) => issue.path)).toContain(path);
    expect(run!.stderr).not.toContain('hint:');
  });
});
