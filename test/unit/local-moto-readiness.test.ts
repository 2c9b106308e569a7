import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startMoto } from '../../lib/local/moto.js';

/**
 * A moto_server standing in for the real one: `body` runs with `port` (the one it was given) and
 * `log(text)` (appends a line to the file `log`).
 */
function fakeMoto(dir: string, body: string): { log: string } {
  const log = join(dir, 'log');
  writeFileSync(
    join(dir, 'moto_server'),
    `#!${process.execPath}\n` +
      `const port = Number(process.argv[process.argv.indexOf('-p') + 1]);\n` +
      `const log = (text) => require('node:fs').appendFileSync(${JSON.stringify(log)}, text + '\\n');\n` +
      body,
  );
  chmodSync(join(dir, 'moto_server'), 0o755);
  vi.stubEnv('PATH', dir);
  return { log };
}

describe('startMoto, waiting for moto_server to be ready', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'moto-ready-'));
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads the line saying it listens when the line reaches its output in pieces', async () => {
    fakeMoto(
      dir,
      `require('node:http').createServer((q, r) => r.end('moto')).listen(port, '127.0.0.1', () => {\n` +
        `  process.stderr.write(' * Running on http://127.0.');\n` +
        `  setTimeout(() => process.stderr.write('0.1:' + port + '\\n'), 200);\n` +
        `});\n`,
    );
    const server = await startMoto();
    try {
      expect(await (await fetch(`${server.endpoint}/moto-api/`)).text()).toBe('moto');
    } finally {
      await server.stop();
    }
  });

  it('does not take a line naming another port that begins with the digits of its own for its own', async () => {
    // Another process holds the port given, answering as moto would.
    const other = createServer((request, response) => response.end('another server'));
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const held = (other.address() as AddressInfo).port;
    fakeMoto(
      dir,
      `process.stderr.write(' * Running on http://127.0.0.1:' + port + '1\\n');\n` +
        `setTimeout(() => { process.stderr.write('Address already in use\\n'); process.exit(1); }, 300);\n`,
    );
    try {
      const error = (await startMoto({ port: async () => held }).catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(Error);
      expect(error.message).toMatch(/^moto_server could not bind a port: another process took each of the 3 free ports/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('is ready once moto_server answers its /moto-api/ page, not while it answers with an error status', async () => {
    const { log } = fakeMoto(
      dir,
      `let started;\n` +
        `require('node:http').createServer((q, r) => {\n` +
        `  const status = Date.now() - started < 500 ? 503 : 200;\n` +
        `  log(String(status));\n` +
        `  r.statusCode = status;\n` +
        `  r.end();\n` +
        `}).listen(port, '127.0.0.1', () => { started = Date.now(); process.stderr.write(' * Running on http://127.0.0.1:' + port + '\\n'); });\n`,
    );
    const server = await startMoto();
    try {
      const statuses = readFileSync(log, 'utf8').trim().split('\n');
      expect(statuses[0]).toBe('503');
      expect(statuses.at(-1)).toBe('200');
    } finally {
      await server.stop();
    }
  });

  it('leaves no handler on this process behind once the server is stopped', async () => {
    fakeMoto(
      dir,
      `require('node:http').createServer((q, r) => r.end('moto')).listen(port, '127.0.0.1', () => process.stderr.write(' * Running on http://127.0.0.1:' + port + '\\n'));\n`,
    );
    const before = process.listenerCount('exit');
    const server = await startMoto();
    expect(process.listenerCount('exit')).toBe(before + 1);
    await server.stop();
    expect(process.listenerCount('exit')).toBe(before);
  });
});
