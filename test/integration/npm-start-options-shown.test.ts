/**
 * `npm start`'s start-up lines for the options given: an option without effect warned about, no
 * demo instances, and `--verbose`'s debug lines.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { outputOf } from '../support/child-output.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

function start(args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'lib/local/main.ts', ...args], { cwd: root, env: process.env });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, ...outputOf(child) };
}

let running: ReturnType<typeof start> | undefined;
afterEach(() => {
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
});

/** Creates a volume through the API and waits for its status line. */
async function createVolume(apiUrl: string, started: ReturnType<typeof start>): Promise<void> {
  const created = await fetch(`${apiUrl}/volumes`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ volumeId: 'shown', spec: { sizeGiB: 8, volumeType: 'gp3', availabilityZone: 'us-east-1a' } }),
  });
  expect(created.status).toBe(201);
  await started.lineMatching(/volume\/shown {2}new → /);
}

describe('npm start (memory backend)', () => {
  it('warns of --endpoint, names no demo instance with --demo-instances 0 and suggests a volume in the zone, and logs its batches with --verbose', async () => {
    running = start(['--port', '0', '--demo-instances', '0', '--verbose', '--endpoint', 'http://127.0.0.1:9']);
    const [, apiUrl] = await running.lineMatching(/HTTP API on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(running.lines[1]).toMatch(/WARN +--endpoint is ignored with --backend memory: it names the AWS endpoint of --backend moto$/);
    await running.lineMatching(/INFO +demo instances in us-east-1a: none$/);
    const [, tried] = await running.lineMatching(/INFO +try: (.*)$/);
    expect(tried).toBe(`npx ebs-provisioner --endpoint ${apiUrl} volumes create --size 20 --type gp3 --az us-east-1a`);
    await createVolume(apiUrl!, running);
    await running.lineMatching(/DEBUG +watcher batch received /);
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);
  }, 45_000);

  it('logs no debug line without --verbose', async () => {
    running = start(['--port', '0', '--demo-instances', '0']);
    const [, apiUrl] = await running.lineMatching(/HTTP API on (http:\/\/127\.0\.0\.1:\d+)/);
    await createVolume(apiUrl!, running);
    await running.lineMatching(/volume\/shown {2}creating → available/);
    running.child.kill('SIGINT');
    expect(await running.exited).toBe(0);
    expect(running.lines.filter((line) => / DEBUG /.test(line))).toEqual([]);
    expect(running.lines.filter((line) => / WARN /.test(line))).toEqual([]);
  }, 45_000);
});
