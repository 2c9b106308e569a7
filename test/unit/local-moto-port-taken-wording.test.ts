import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { startMoto } from '../../lib/local/moto.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'moto-port-taken-'));
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

it("takes moto_server's own sentence for a port taken first, without the system's wording before it, and tries another port", async () => {
  const attempts = join(dir, 'attempts');
  // werkzeug prints the system's reason (its wording differs between systems), then this sentence of its own.
  writeFileSync(
    join(dir, 'moto_server'),
    `#!/bin/sh\necho "$4" >> "${attempts}"\necho "Port $4 is in use by another program. Either identify and stop that program, or start the server with a different port." >&2\nexit 1\n`,
  );
  chmodSync(join(dir, 'moto_server'), 0o755);
  vi.stubEnv('PATH', dir);
  const error = (await startMoto().catch((e: unknown) => e)) as Error;
  expect(readFileSync(attempts, 'utf8').trim().split('\n')).toHaveLength(3);
  expect(error.message).toMatch(/^moto_server could not bind a port: another process took each of the 3 free ports it was given/);
});
