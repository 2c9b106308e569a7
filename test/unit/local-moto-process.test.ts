import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startMoto } from '../../lib/local/moto.js';

/** PATH as this process was given it (each test gives moto_server its own). */
const systemPath = process.env.PATH;

/** Whether a process with this id is running. */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('the moto_server process startMoto starts', () => {
  let dir: string;
  let pidFile: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'moto-process-'));
    pidFile = join(dir, 'pid');
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllEnvs();
    // Left running only when a test fails: end it here.
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      if (running(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** A moto_server that writes its pid and its environment, then serves as moto does (or only runs, `serve` false). */
  function fakeMoto(serve = true): string {
    const environment = join(dir, 'environment');
    writeFileSync(
      join(dir, 'moto_server'),
      `#!${process.execPath}\n` +
        `const port = Number(process.argv[process.argv.indexOf('-p') + 1]);\n` +
        `require('node:fs').writeFileSync(${JSON.stringify(environment)}, JSON.stringify(process.env));\n` +
        `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n` +
        (serve
          ? `require('node:http').createServer((q, r) => r.end('moto')).listen(port, '127.0.0.1', () => process.stderr.write(' * Running on http://127.0.0.1:' + port + '\\n'));\n`
          : `setInterval(() => {}, 1000);\n`),
    );
    chmodSync(join(dir, 'moto_server'), 0o755);
    vi.stubEnv('PATH', dir);
    return environment;
  }

  const processGroup = (pid: number) => Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8', env: { PATH: systemPath } }).trim());

  it('gets none of the AWS settings of this process, and the rest of its environment', async () => {
    const environment = fakeMoto();
    vi.stubEnv('AWS_PROFILE', 'no-such-profile');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIAEXAMPLE');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('MOTO_TEST_SETTING', 'kept');
    const server = await startMoto();
    try {
      const env = JSON.parse(readFileSync(environment, 'utf8')) as Record<string, string>;
      expect(Object.keys(env).filter((name) => name.startsWith('AWS_'))).toEqual([]);
      expect(env.MOTO_TEST_SETTING).toBe('kept');
      expect(env.PATH).toBe(dir);
    } finally {
      await server.stop();
    }
  });

  it('runs in a process group of its own with ownProcessGroup, and in this process\'s group without', async () => {
    fakeMoto();
    const own = await startMoto({ ownProcessGroup: true });
    try {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(processGroup(pid)).toBe(pid);
    } finally {
      await own.stop();
    }
    const shared = await startMoto();
    try {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      expect(processGroup(pid)).toBe(processGroup(process.pid));
    } finally {
      await shared.stop();
    }
  });

  it('is stopped when it does not come up in time, and the error says it did not say it was listening', async () => {
    fakeMoto(false);
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = startMoto().catch((error: unknown) => error);
    await vi.waitFor(() => expect(existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '').toBe(true), { timeout: 10_000 });
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(running(pid)).toBe(true);
    // 20 s go by without a word from it.
    vi.setSystemTime(Date.now() + 20_001);
    const error = (await start) as Error;
    expect(error.message).toMatch(/^moto_server at http:\/\/127\.0\.0\.1:\d+ did not say it was listening within 20000 ms: $/);
    expect(running(pid)).toBe(false);
  });
});

describe('startMoto when moto_server cannot be run', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'moto-unrunnable-'));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it("fails with the system's reason when the file on PATH cannot be run (its interpreter is missing)", async () => {
    writeFileSync(join(dir, 'moto_server'), `#!${join(dir, 'no-such-python')}\n`);
    chmodSync(join(dir, 'moto_server'), 0o755);
    vi.stubEnv('PATH', dir);
    const error = (await startMoto().catch((e: unknown) => e)) as Error & { code?: string };
    expect(error.code).toBe('ENOENT');
    expect(error.message).toBe(`spawn ${join(dir, 'moto_server')} ENOENT`);
  });
});
