/**
 * `npm start` itself, as a user runs it: the entry point in a child process with its flag parsing,
 * first log line, demo instances, HTTP API, status lines and a clean stop on SIGINT or SIGTERM, the
 * latter also sent to npm itself, and a Ctrl-C sent to the process group of npm and the runtime.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { REPEAT_WINDOW_MS } from '../../lib/local/signals.js';
import { outputOf, type ChildOutput } from '../support/child-output.js';
import { describeWithMoto, userAwsEnvironment } from '../support/moto.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

interface Started extends ChildOutput {
  child: ChildProcessWithoutNullStreams;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * `detached`: in a process group of its own, as a terminal runs it, so a Ctrl-C can go to the whole
 * group (and the group is killed after the test). `viaNpm`: `npm start -- <args>` itself (detached),
 * rather than the command its script runs.
 */
function start(args: string[], options: { detached?: boolean; viaNpm?: boolean; path?: string } = {}): Started {
  // A user's own AWS_PROFILE set, no credentials: the runtime uses its dummy ones, never the profile.
  const env = { ...userAwsEnvironment(process.env), ...(options.path === undefined ? {} : { PATH: options.path }) };
  const detached = (options.detached ?? false) || (options.viaNpm ?? false);
  const child = options.viaNpm
    ? // npm's own registry calls are switched off: only the runtime runs.
      spawn('npm', ['start', '--', ...args], { cwd: root, env: { ...env, npm_config_update_notifier: 'false' }, detached })
    : // As the `start` script runs it: node itself with tsx's loader, so signals reach the runtime directly.
      spawn(process.execPath, ['--import', 'tsx', 'lib/local/main.ts', ...args], { cwd: root, env, detached });
  if (detached) groups.push(child.pid!);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, ...outputOf(child) };
}

let running: Started | undefined;
/** Process groups started, killed after each test: what is left of one must not outlive it. */
const groups: number[] = [];
afterEach(() => {
  if (running && running.child.exitCode === null) running.child.kill('SIGKILL');
  for (const group of groups.splice(0)) {
    try {
      process.kill(-group, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }
});

/** The state letter of process `pid` in /proc (Linux), undefined once it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // "pid (command) state ppid …": the command may hold spaces and parentheses.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/** Whether process `pid` runs (a zombie waiting to be reaped has ended). */
function processAlive(pid: number): boolean {
  const state = processState(pid);
  return state !== undefined && state !== 'Z';
}

/**
 * The first child process of `parent` to appear whose command line matches `command` (Linux /proc;
 * bounded). The runtime has other children (tsx's esbuild service starts first), so the command
 * picks the one meant.
 */
async function childOf(parent: number, command: RegExp, timeoutMs = 15_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== parent) continue;
        if (command.test(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' '))) return Number(entry);
      } catch {
        // gone meanwhile
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`process ${parent} started no child matching ${String(command)} within ${timeoutMs} ms`);
}

/** Whether something accepts connections at `url` (bounded). */
async function listening(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return true;
  } catch {
    return false;
  }
}

/** Waits (bounded) until nothing accepts connections at `url`. */
async function closed(url: string, timeoutMs = 15_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!(await listening(url))) return true;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return false;
}

describe('npm start (memory backend)', () => {
  it('names the backend first, serves the API, runs the pipeline and exits 0 on SIGINT', async () => {
    running = start(['--port', '0', '--demo-instances', '1']);
    const [, apiUrl] = await running.lineMatching(/HTTP API on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(running.lines[0]).toMatch(/INFO +ebs-provisioner local runtime: backend=memory$/);
    const [, instanceId] = await running.lineMatching(/demo instances in us-east-1a: (i-[0-9a-f]{17})$/);

    const created = await fetch(`${apiUrl}/volumes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ volumeId: 'started', spec: { sizeGiB: 8, volumeType: 'gp3' }, attachTo: { instanceId } }),
    });
    expect(created.status).toBe(201);
    // Realistic EBS timings: about 2 s to create, 2 s to attach, plus the executor's progress checks.
    await running.lineMatching(/volume\/started {2}creating → available {2}vol-/);
    await running.lineMatching(new RegExp(`attachment/started/${instanceId} {2}attaching → attached {2}/dev/`), 25_000);

    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.lines).toEqual(expect.arrayContaining([expect.stringMatching(/SIGINT: stopping… \(again to force\)$/)]));
  }, 45_000);

  it('stops on a SIGTERM sent to npm itself (a process manager stopping `npm start`): the runtime exits and its port closes', async () => {
    running = start(['--port', '0', '--demo-instances', '0'], { viaNpm: true });
    const [, apiUrl] = await running.lineMatching(/HTTP API on (http:\/\/127\.0\.0\.1:\d+)/);
    await running.lineMatching(/Ctrl-C stops$/);
    running.child.kill('SIGTERM');
    await running.exited;
    expect(await closed(`${apiUrl}/openapi.json`)).toBe(true);
    expect(running.lines).toEqual(expect.arrayContaining([expect.stringMatching(/SIGTERM: stopping/)]));
  }, 45_000);

  it('stops in order, exiting 0, on a Ctrl-C sent to the process group of `npm start`, as a terminal sends it (npm passes its own SIGINT on too)', async () => {
    running = start(['--port', '0', '--demo-instances', '0'], { viaNpm: true });
    await running.lineMatching(/Ctrl-C stops$/);
    process.kill(-running.child.pid!, 'SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.lines).toEqual(expect.arrayContaining([expect.stringMatching(/SIGINT: stopping… \(again to force\)$/)]));
    expect(running.lines.filter((line) => /again: exiting at once/.test(line))).toEqual([]);
  }, 45_000);

  it('runs on, and stops in order, once the pipe its output went to is closed (`npm start | head -5`)', async () => {
    running = start(['--port', '0', '--demo-instances', '0']);
    const [, apiUrl] = await running.lineMatching(/HTTP API on (http:\/\/127\.0\.0\.1:\d+)/);
    await running.lineMatching(/Ctrl-C stops$/);
    // The reader goes, as `head` does once it has its lines: the runtime's next line meets a closed pipe.
    running.child.stdout.destroy();
    // Runs on: a volume created now goes through its status changes, each a line into the closed
    // pipe, and the API still answers once it is available.
    const created = await fetch(`${apiUrl}/volumes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ volumeId: 'unread', spec: { sizeGiB: 8, volumeType: 'gp3', availabilityZone: 'us-east-1a' } }),
    });
    expect(created.status).toBe(201);
    const deadline = Date.now() + 20_000;
    let state: string | undefined;
    while (state !== 'available' && running.child.exitCode === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const response = await fetch(`${apiUrl}/volumes/unread`).catch(() => undefined);
      state = response?.ok ? ((await response.json()) as { status: { state: string } }).status.state : undefined;
    }
    expect(state, `stderr:\n${running.stderr()}`).toBe('available');
    expect(running.child.exitCode).toBeNull();
    running.child.kill('SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(await listening(`${apiUrl}/openapi.json`)).toBe(false);
  }, 45_000);

  it('rejects an unknown backend before starting anything', async () => {
    running = start(['--backend', 'dynamo']);
    expect(await running.exited).toEqual({ code: 1, signal: null });
    // Refused for its backend by name, not ended by some other failure.
    expect(running.stderr()).toMatch(/argument 'dynamo' is invalid\. Allowed choices are memory, moto\./);
    expect(running.lines.some((line) => line.includes('HTTP API on'))).toBe(false);
  }, 15_000);
});

describe('npm start that cannot start', () => {
  /** A loopback port nothing listens on while `use` runs (listened on, then closed), or one held open. */
  async function withPort<T>(hold: boolean, use: (port: number) => Promise<T>): Promise<T> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    if (!hold) await new Promise((resolve) => server.close(resolve));
    try {
      return await use(port);
    } finally {
      if (hold) await new Promise((resolve) => server.close(resolve));
    }
  }

  it('says to choose another --port when the port is taken, and exits 1', async () => {
    await withPort(true, async (port) => {
      running = start(['--port', String(port), '--demo-instances', '0']);
      expect(await running.exited).toEqual({ code: 1, signal: null });
      expect(running.lines.at(-1)).toMatch(
        new RegExp(`ERROR could not start: port ${port} on 127\\.0\\.0\\.1 is in use: give another with --port N \\(--port 0 picks a free one\\)$`),
      );
    });
  }, 20_000);

  it('says the AWS endpoint nothing answers at came from --endpoint, and exits 1', async () => {
    await withPort(false, async (port) => {
      running = start(['--backend', 'moto', '--endpoint', `http://127.0.0.1:${port}`, '--port', '0']);
      expect(await running.exited).toEqual({ code: 1, signal: null });
      expect(running.lines.at(-1)).toContain(`ERROR could not start: nothing answers at the AWS endpoint http://127.0.0.1:${port} (from --endpoint)`);
    });
  }, 20_000);
});

/**
 * Nothing listens at `endpoint` any more: the connection is refused (a server that hung, or one
 * still serving, would time out or answer instead).
 */
async function expectRefused(endpoint: string): Promise<void> {
  const refused = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(2_000) }).then(
    (response) => `answered ${response.status}`,
    (error: unknown) => error,
  );
  expect((refused as { cause?: { code?: string } }).cause?.code, `${endpoint}: ${String(refused)}`).toBe('ECONNREFUSED');
}

describeWithMoto('npm start -- --backend moto', () => {
  it('starts moto_server, serves the API over it, and stops both on SIGTERM', async () => {
    running = start(['--backend', 'moto', '--port', '0', '--demo-instances', '1']);
    const [, awsEndpoint] = await running.lineMatching(/AWS endpoint (http:\/\/127\.0\.0\.1:\d+), table /, 30_000);
    const [, apiUrl] = await running.lineMatching(/HTTP API on (http:\/\/127\.0\.0\.1:\d+)/);
    expect(running.lines[0]).toMatch(/INFO +ebs-provisioner local runtime: backend=moto endpoint=moto_server \(starting\)$/);
    await running.lineMatching(/demo instances in us-east-1a: i-[0-9a-f]+$/);

    const created = await fetch(`${apiUrl}/volumes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ volumeId: 'on-moto', spec: { sizeGiB: 8, volumeType: 'gp3', availabilityZone: 'us-east-1a' } }),
    });
    expect(created.status).toBe(201);
    await running.lineMatching(/volume\/on-moto {2}creating → available {2}vol-/);

    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    await expectRefused(awsEndpoint!);
  }, 60_000);

  it('stops in order on a Ctrl-C sent to its whole process group, as a terminal sends it: no errors, moto_server gone', async () => {
    running = start(['--backend', 'moto', '--port', '0', '--demo-instances', '0'], { detached: true });
    const [, awsEndpoint] = await running.lineMatching(/AWS endpoint (http:\/\/127\.0\.0\.1:\d+), table /, 30_000);
    await running.lineMatching(/Ctrl-C stops$/);
    process.kill(-running.child.pid!, 'SIGINT');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.lines.filter((line) => / ERROR /.test(line))).toEqual([]);
    await expectRefused(awsEndpoint!);
  }, 60_000);

  it.skipIf(process.platform !== 'linux')('exits at once on a second SIGTERM, killing the moto_server it started', async () => {
    // A moto_server that never answers and ignores SIGTERM, so the orderly stop is certainly still
    // waiting for it when the second signal comes (a real one may be ready before that, on a quick machine).
    const bin = mkdtempSync(join(tmpdir(), 'never-ready-moto-'));
    try {
      writeFileSync(
        join(bin, 'moto_server'),
        '#!/usr/bin/env python3\nimport signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\ntime.sleep(120)\n',
        { mode: 0o755 },
      );
      running = start(['--backend', 'moto', '--port', '0', '--demo-instances', '0'], { path: `${bin}${delimiter}${process.env.PATH ?? ''}` });
      const runtimePid = running.child.pid!;
      await running.lineMatching(/backend=moto endpoint=moto_server \(starting\)$/);
      const moto = await childOf(runtimePid, /moto_server/);
      running.child.kill('SIGTERM');
      await running.lineMatching(/SIGTERM: stopping… \(again to force\)$/);
      // Past the moment within which the same signal is the first one delivered twice.
      await new Promise((resolve) => setTimeout(resolve, REPEAT_WINDOW_MS + 100));
      expect(running.child.exitCode).toBeNull();
      running.child.kill('SIGTERM');
      expect(await running.exited).toEqual({ code: 143, signal: null });
      expect(running.lines).toEqual(expect.arrayContaining([expect.stringMatching(/WARN +SIGTERM again: exiting at once$/)]));
      expect(processAlive(moto)).toBe(false);
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 30_000);

  it('stops cleanly when told to while moto_server is still starting', async () => {
    running = start(['--backend', 'moto', '--port', '0', '--demo-instances', '0']);
    await running.lineMatching(/backend=moto endpoint=moto_server \(starting\)$/);
    running.child.kill('SIGTERM');
    expect(await running.exited).toEqual({ code: 0, signal: null });
    expect(running.lines.some((line) => line.includes('HTTP API on'))).toBe(false);
  }, 30_000);
}, { server: false });
