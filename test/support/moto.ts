/**
 * Vitest support for integration tests against moto_server: one server per test file, on a free
 * loopback port, started before the file's tests and stopped after them.
 *
 * When moto_server is not installed the suites are reported as skipped with the install command,
 * unless `REQUIRE_MOTO=1` (set by CI), which turns the skip into a failure.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { createAwsClients, type AwsClients } from '../../lib/aws/clients.js';
import { LOCAL_CREDENTIALS, LOCAL_REQUEST_TIMEOUT_MS } from '../../lib/local/moto-backend.js';
import { findMotoServer, startMoto, type MotoServer } from '../../lib/local/moto.js';

const INSTALL_HINT = "install it with: pip install 'moto[server]'";
export const MOTO_REGION = 'us-east-1';

/**
 * Clients for the tests' own calls to moto: its dummy credentials and region given explicitly,
 * as the local runtime gives them (with its bound on a request), so nothing in the environment is consulted.
 */
export function motoClients(endpoint: string): AwsClients {
  return createAwsClients({ endpoint, region: MOTO_REGION, credentials: LOCAL_CREDENTIALS, requestTimeoutMs: LOCAL_REQUEST_TIMEOUT_MS });
}

/**
 * `env` as a user with an AWS profile of their own has it, whose AWS settings must neither redirect
 * test traffic nor be needed: no endpoint, credentials or region, and a profile set that names
 * nothing (in config files that do not exist). Every client talking to moto must therefore carry
 * its credentials and region; one that consulted the profile fails.
 */
export function userAwsEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const nowhere = join(tmpdir(), `ebs-provisioner-no-aws-config-${process.pid}`);
  return {
    ...Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('AWS_'))),
    AWS_PROFILE: 'ebs-provisioner-test-profile-that-does-not-exist',
    AWS_CONFIG_FILE: join(nowhere, 'config'),
    AWS_SHARED_CREDENTIALS_FILE: join(nowhere, 'credentials'),
    // Nor may a client that looks for credentials reach for instance metadata.
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

function isolateFromAwsEnvironment(): void {
  const isolated = userAwsEnvironment(process.env);
  for (const name of Object.keys(process.env)) if (!(name in isolated)) delete process.env[name];
  Object.assign(process.env, isolated);
}

export const motoInstalled = findMotoServer() !== undefined;
export const motoRequired = process.env.REQUIRE_MOTO === '1';

function assertMotoInstalled(): void {
  if (!motoInstalled) {
    throw new Error(`moto_server is required${motoRequired ? ' (REQUIRE_MOTO=1)' : ''} but was not found on PATH; ${INSTALL_HINT}`);
  }
}

/**
 * Starts moto once for the enclosing suite (beforeAll) and stops it afterwards (afterAll).
 * Returns an accessor for the endpoint, valid inside tests and hooks registered after this call.
 * Throws from beforeAll when moto_server is missing; use `describeWithMoto` to skip instead.
 */
export function useMoto(): () => string {
  let server: MotoServer | undefined;
  // At registration, before any client is created while the suite is collected.
  isolateFromAwsEnvironment();
  beforeAll(async () => {
    assertMotoInstalled();
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
 * `server: false` for suites whose tests start moto_server themselves (through `startMoto` or the
 * local runtime): skipped or failed alike, but no server is started for them.
 */
export function describeWithMoto(name: string, body: (endpoint: () => string) => void, options: { server?: boolean } = {}): void {
  const skip = !motoInstalled && !motoRequired;
  if (skip && !warned) {
    warned = true;
    console.warn(`Integration tests against moto are skipped: moto_server was not found on PATH; ${INSTALL_HINT}`);
  }
  describe.skipIf(skip)(skip ? `${name} (skipped: moto_server not found; ${INSTALL_HINT})` : name, () => {
    if (options.server ?? true) {
      body(useMoto());
      return;
    }
    beforeAll(assertMotoInstalled);
    body(() => {
      throw new Error(`${name} starts no moto_server for its tests: they start their own`);
    });
  });
}
