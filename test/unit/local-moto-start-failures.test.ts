import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findMotoServer, startMoto } from '../../lib/local/moto.js';

describe('startMoto when moto_server cannot serve', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'moto-start-'));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it('says how to install it when no directory on PATH holds it', async () => {
    vi.stubEnv('PATH', dir);
    expect(findMotoServer()).toBeUndefined();
    await expect(startMoto()).rejects.toThrow("moto_server was not found on PATH; install it with: pip install 'moto[server]'");
  });

  it('passes over a directory named moto_server on PATH for the executable further on, as the shell does', async () => {
    const shadow = join(dir, 'first');
    const installed = join(dir, 'second');
    mkdirSync(join(shadow, 'moto_server'), { recursive: true });
    mkdirSync(installed);
    writeFileSync(join(installed, 'moto_server'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(installed, 'moto_server'), 0o755);
    vi.stubEnv('PATH', `${shadow}${delimiter}${installed}`);
    expect(findMotoServer()).toBe(join(installed, 'moto_server'));
  });

  it('tries three times in all when it exits before it is ready (its port taken first), then fails with its exit code and output', async () => {
    const attempts = join(dir, 'attempts');
    const executable = join(dir, 'moto_server');
    // Exits at once, as moto_server does when another process bound its port first.
    writeFileSync(executable, `#!/bin/sh\necho "$@" >> "${attempts}"\necho "OSError: [Errno 98] Address already in use" >&2\nexit 3\n`);
    chmodSync(executable, 0o755);
    vi.stubEnv('PATH', dir);
    expect(findMotoServer()).toBe(executable);
    const error = (await startMoto().catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^moto_server exited before it was ready \(code 3\): OSError: \[Errno 98\] Address already in use\n?$/);
    const calls = readFileSync(attempts, 'utf8').trim().split('\n');
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call).toMatch(/^-H 127\.0\.0\.1 -p \d+$/);
  });

  it("reports moto_server's last lines even when they reach its output after its process exited", async () => {
    const executable = join(dir, 'moto_server');
    // Exits at once; the reason is written a moment later by a process that holds its output open
    // (as a child of moto_server may), so it arrives after the exit and before the output closes.
    const late = "setTimeout(() => process.stderr.write('ValueError: the reason it failed\\n'), 500)";
    writeFileSync(
      executable,
      `#!${process.execPath}\n` +
        `process.stderr.write('starting\\n');\n` +
        `require('node:child_process').spawn(process.execPath, ['-e', ${JSON.stringify(late)}], { stdio: ['ignore', 'inherit', 'inherit'] }).unref();\n` +
        `process.exit(4);\n`,
    );
    chmodSync(executable, 0o755);
    vi.stubEnv('PATH', dir);
    const error = (await startMoto().catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^moto_server exited before it was ready \(code 4\): starting\nValueError: the reason it failed\n?$/);
  });

  it('names the signal that ended it when a signal, not an exit code, ended it before it was ready', async () => {
    const executable = join(dir, 'moto_server');
    // Killed while starting (as the kernel's out-of-memory killer does): no exit code, a signal.
    writeFileSync(executable, `#!${process.execPath}\nprocess.stderr.write('loading models\\n');\nprocess.kill(process.pid, 'SIGKILL');\n`);
    chmodSync(executable, 0o755);
    vi.stubEnv('PATH', dir);
    const error = (await startMoto().catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(/^moto_server exited before it was ready \(signal SIGKILL\): loading models\n?$/);
  });

  it('kills a moto_server that does not end on SIGTERM once 5 s have passed, so a stop always ends', async () => {
    const pidFile = join(dir, 'pid');
    const executable = join(dir, 'moto_server');
    // Answers HTTP on the port it is given, as moto_server does, and ignores SIGTERM.
    writeFileSync(
      executable,
      `#!${process.execPath}\n` +
        `const port = Number(process.argv[process.argv.indexOf('-p') + 1]);\n` +
        `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n` +
        `process.on('SIGTERM', () => {});\n` +
        `require('node:http').createServer((q, r) => r.end('ok')).listen(port, '127.0.0.1');\n`,
    );
    chmodSync(executable, 0o755);
    vi.stubEnv('PATH', dir);
    const server = await startMoto();
    expect((await fetch(`${server.endpoint}/moto-api/`)).ok).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('kills the moto_server it started when its process exits without stopping it', async () => {
    const pidFile = join(dir, 'pid');
    writeFileSync(
      join(dir, 'moto_server'),
      `#!${process.execPath}\n` +
        `const port = Number(process.argv[process.argv.indexOf('-p') + 1]);\n` +
        `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n` +
        `require('node:http').createServer((q, r) => r.end('ok')).listen(port, '127.0.0.1');\n`,
    );
    chmodSync(join(dir, 'moto_server'), 0o755);
    // A process that starts moto_server in a process group of its own, as `npm start` does, and exits at once.
    const script = "const { startMoto } = await import('./lib/local/moto.js'); await startMoto({ ownProcessGroup: true }); process.exit(0);";
    const exit = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: process.cwd(), env: { ...process.env, PATH: dir }, stdio: 'ignore' });
      child.once('error', reject);
      child.once('exit', resolve);
    });
    expect(exit).toBe(0);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    try {
      await vi.waitFor(() => expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' })), { timeout: 5_000 });
    } finally {
      // Left running only when the test fails: end it here.
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
    }
  });
});
