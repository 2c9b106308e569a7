/**
 * Vitest support for integration tests against moto_server: one server per test file, on a free
 * loopback port, started before the file's tests and stopped after them.
 *
 * When moto_server is not installed the suites are reported as skipped with the install command,
 * unless `REQUIRE_MOTO=1` (set by CI), which turns the skip into a failure.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { findMotoServer, startMoto, type MotoServer } from '../../lib/local/moto.js';

const INSTALL_HINT = "install it with: pip install 'moto[server]'";
export const MOTO_REGION = 'us-east-1';

/** moto accepts any credentials; fixed fake ones keep the SDK from looking for real ones. */
function useFakeCredentials(): void {
  process.env.AWS_ACCESS_KEY_ID = 'testing';
  process.env.AWS_SECRET_ACCESS_KEY = 'testing';
  process.env.AWS_SESSION_TOKEN = 'testing';
  process.env.AWS_REGION = MOTO_REGION;
  process.env.AWS_DEFAULT_REGION = MOTO_REGION;
  // Never let a developer's endpoint or profile redirect test traffic.
  delete process.env.AWS_ENDPOINT_URL;
  delete process.env.AWS_PROFILE;
}

export const motoInstalled = findMotoServer() !== undefined;
export const motoRequired = process.env.REQUIRE_MOTO === '1';

/**
 * Starts moto once for the enclosing suite (beforeAll) and stops it afterwards (afterAll).
 * Returns an accessor for the endpoint, valid inside tests and hooks registered after this call.
 * Throws from beforeAll when moto_server is missing; use `describeWithMoto` to skip instead.
 */
export function useMoto(): () => string {
  let server: MotoServer | undefined;
  // At registration too, so clients created while the suite is collected see them.
  useFakeCredentials();
  beforeAll(async () => {
    if (!motoInstalled) {
      throw new Error(
        `moto_server is required${motoRequired ? ' (REQUIRE_MOTO=1)' : ''} but was not found on PATH; ${INSTALL_HINT}`,
      );
    }
    server = await startMoto();
  });
  afterAll(async () => {
    await server?.stop();
  });
  return () => {
    if (server === undefined) throw new Error('moto is not running: use the endpoint inside tests or hooks');
    return server.endpoint;
  };
}

let warned = false;

/**
 * `describe` with a moto_server for its tests; skipped (with the install command in the suite
 * name and a warning) when moto_server is missing, failed instead when REQUIRE_MOTO=1.
 */
export function describeWithMoto(name: string, body: (endpoint: () => string) => void): void {
  const skip = !motoInstalled && !motoRequired;
  if (skip && !warned) {
    warned = true;
    console.warn(`Integration tests against moto are skipped: moto_server was not found on PATH; ${INSTALL_HINT}`);
  }
  describe.skipIf(skip)(skip ? `${name} (skipped: moto_server not found; ${INSTALL_HINT})` : name, () => {
    body(useMoto());
  });
}
