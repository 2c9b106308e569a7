import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

  it('tries three times in all when it exits before it is ready because its port was taken first, then fails naming the ports', async () => {
    const attempts = join(dir, 'attempts');
    const executable = join(dir, 'moto_server');
    // Exits at once, as moto_server does when another process bound its port first.
    writeFileSync(executable, `#!/bin/sh\necho "$@" >> "${attempts}"\necho "Address already in use" >&2\necho "Port $4 is in use by another program." >&2\nexit 1\n`);
    chmodSync(executable, 0o755);
    vi.stubEnv('PATH', dir);
    expect(findMotoServer()).toBe(executable);
    const error = (await startMoto().catch((e: unknown) => e)) as Error;
    const calls = readFileSync(attempts, 'utf8').trim().split('\n');
    expect(calls).toHaveLength(3);
    for (const call of calls) expect(call).toMatch(/^-H 127\.0\.0\.1 -p \d+$/);
    const ports = calls.map((call) => call.split(' ').at(-1));
    expect(error.message).toBe(
      `moto_server could not bind a port: another process took each of the 3 free ports it was given (${ports.join(', ')}) first; ` +
        `its last attempt said: moto_server exited before it was ready (code 1): Address already in use\nPort ${ports[2]} is in use by another program.\n`,
    );
  });

  it('starts it once only when it exits before it is ready for another reason than its port', async () => {
    const attempts = join(dir, 'attempts');
    const executable = join(dir, 'moto_server');
    writeFileSync(executable, `#!/bin/sh\necho "$@" >> "${attempts}"\necho "ModuleNotFoundError: No module named 'flask'" >&2\nexit 1\n`);
    chmodSync(executable, 0o755);
    vi.stubEnv('PATH', dir);
    const error = (await startMoto().catch((e: unknown) => e)) as Error;
    expect(error.message).toBe("moto_server exited before it was ready (code 1): ModuleNotFoundError: No module named 'flask'\n");
    expect(readFileSync(attempts, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  /** A moto_server that binds its port as moto's does: says so once it listens, or exits saying the port is taken. */
  const bindingMoto = (attempts: string) =>
    `#!${process.execPath}\n` +
    `const port = Number(process.argv[process.argv.indexOf('-p') + 1]);\n` +
    `require('node:fs').appendFileSync(${JSON.stringify(attempts)}, port + '\\n');\n` +
    `const server = require('node:http').createServer((q, r) => r.end('moto'));\n` +
    `server.once('error', () => { process.stderr.write('Address already in use\\n'); process.exit(1); });\n` +
    `server.listen(port, '127.0.0.1', () => process.stderr.write(' * Running on http://127.0.0.1:' + port + '\\n'));\n`;

  it('is not taken in by another server on the port it was given: it waits for its own, then tries another port', async () => {
    const attempts = join(dir, 'attempts');
    writeFileSync(join(dir, 'moto_server'), bindingMoto(attempts));
    chmodSync(join(dir, 'moto_server'), 0o755);
    vi.stubEnv('PATH', dir);
    // Another process holds the first port given, and answers there as moto would.
    const other = createServer((request, response) => response.end('another server'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const held = (other.address() as AddressInfo).port;
    const given: number[] = [];
    const free = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    try {
      const server = await startMoto({ port: async () => (given.push(given.length === 0 ? held : free), given.at(-1)!) });
      try {
        expect(given).toEqual([held, free]);
        expect(server.port).toBe(free);
        expect(server.endpoint).toBe(`http://127.0.0.1:${free}`);
        expect(await (await fetch(`${server.endpoint}/moto-api/`)).text()).toBe('moto');
        expect(readFileSync(attempts, 'utf8').trim().split('\n').map(Number)).toEqual([held, free]);
      } finally {
        await server.stop();
      }
      // The other server was left as it was.
      expect(await (await fetch(`http://127.0.0.1:${held}/moto-api/`)).text()).toBe('another server');
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
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
        `require('node:http').createServer((q, r) => r.end('ok')).listen(port, '127.0.0.1', () => process.stderr.write(\` * Running on http://127.0.0.1:\${port}\\n\`));\n`,
    );
    chmodSync(executable, 0o755);
    vi.stubEnv('PATH', dir);
    const server = await startMoto();
    expect((await fetch(`${server.endpoint}/moto-api/`)).ok).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(() => process.kill(pid, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
  });

  it('kills the moto_server it started when its process exits without stopping it', async () => {
    const pidFile = join(dir, 'pid');
    writeFileSync(
      join(dir, 'moto_server'),
      `#!${process.execPath}\n` +
        `const port = Number(process.argv[process.argv.indexOf('-p') + 1]);\n` +
        `require('node:fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid));\n` +
        `require('node:http').createServer((q, r) => r.end('ok')).listen(port, '127.0.0.1', () => process.stderr.write(\` * Running on http://127.0.0.1:\${port}\\n\`));\n`,
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
