/**
 * Starts and stops moto_server, the AWS emulator the local runtime and the integration tests run
 * against. It always binds to loopback on a port the OS picked as free, so parallel test files and
 * a running local pipeline never collide, and nothing is reachable from outside the machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';

export interface MotoServer {
  /** `http://127.0.0.1:<port>`, for the SDK clients' `endpoint`. */
  endpoint: string;
  port: number;
  /** Stops the server and waits for the process to exit. */
  stop(): Promise<void>;
}

const EXECUTABLE = 'moto_server';
const READY_TIMEOUT_MS = 20_000;
const READY_POLL_MS = 100;
const STOP_TIMEOUT_MS = 5_000;
/**
 * How long an error message waits, once moto_server has exited, for its output to close: its last
 * lines (why it failed) can still be on their way then, and a process it started may hold the pipes.
 */
const OUTPUT_CLOSE_WAIT_MS = 2_000;

/**
 * What moto_server (werkzeug's development server) prints once it has bound its port, on stderr:
 * ` * Running on http://127.0.0.1:<port>`. Only then is the port its own: until it does, another
 * process that took the port first would answer in its place.
 */
function listeningLine(host: string, port: number): RegExp {
  return new RegExp(`Running on https?://${host.replaceAll('.', '\\.')}:${port}(?![0-9])`);
}

/** What moto_server prints when it exits because another process bound its port first. */
const PORT_TAKEN = /Address already in use|is in use by another program/;

/** moto_server exited while starting because another process bound its port first: another port may do. */
class PortTaken extends Error {
  constructor(
    readonly port: number,
    message: string,
  ) {
    super(message);
  }
}

/** Path of the moto_server executable on PATH, or undefined when moto is not installed. */
export function findMotoServer(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, EXECUTABLE);
    try {
      // A directory may be searched (X_OK) too; only a file can be run.
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** A port the OS reports free on 127.0.0.1 (listen on port 0, read it, close). */
async function freeLoopbackPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, host, () => {
      // A TCP listener's address, once it listens, is an AddressInfo (a string only for a pipe).
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * Resolves once moto_server, the process `child`, serves on `port`: it said it bound the port
 * (`listening`), and it answers HTTP there. An answer on the port before it said so may be another
 * process's, one that took the port between the check that found it free and moto's bind.
 */
async function waitUntilReady(
  endpoint: string,
  port: number,
  child: ChildProcess,
  listening: () => boolean,
  output: () => string,
  finalOutput: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      const how = child.exitCode !== null ? `code ${child.exitCode}` : `signal ${child.signalCode}`;
      const last = await finalOutput();
      const message = `moto_server exited before it was ready (${how}): ${last}`;
      throw PORT_TAKEN.test(last) ? new PortTaken(port, message) : new Error(message);
    }
    if (listening()) {
      try {
        const response = await fetch(`${endpoint}/moto-api/`, { signal: AbortSignal.timeout(1_000) });
        await response.body?.cancel();
        if (response.ok) return;
      } catch {
        // not answering yet
      }
    }
    await new Promise((resolve) => setTimeout(resolve, READY_POLL_MS));
  }
  const why = listening() ? 'was not ready' : 'did not say it was listening';
  throw new Error(`moto_server at ${endpoint} ${why} within ${READY_TIMEOUT_MS} ms: ${output()}`);
}

/**
 * moto_server's environment: this process's, without the AWS settings. moto runs on botocore, which
 * fails every request when AWS_PROFILE names a profile it cannot find; and nothing of a user's AWS
 * configuration concerns an emulator.
 */
function motoEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_')));
}

/** Attempts when another process takes the chosen port before moto binds it. */
const START_ATTEMPTS = 3;

/**
 * Spawns `moto_server -H 127.0.0.1 -p <free port>` and resolves once it says it has bound that port
 * and answers HTTP there. A port another process takes before moto binds it (moto exits, `Address
 * already in use`) is replaced by another free one, START_ATTEMPTS times in all.
 * Throws when moto_server is not installed (see `findMotoServer`) or does not come up in time.
 * `ownProcessGroup`: moto_server runs in a process group of its own, so a Ctrl-C in the terminal
 * (sent to the whole foreground group) reaches only this process, which stops its pipeline before
 * moto_server; it is still killed when this process exits.
 * `port`: the port each attempt is given, by default one the OS reports free (a test gives one it holds).
 */
export async function startMoto(
  options: { host?: '127.0.0.1'; ownProcessGroup?: boolean; port?: (host: string) => Promise<number> } = {},
): Promise<MotoServer> {
  const host = options.host ?? '127.0.0.1';
  const executable = findMotoServer();
  if (executable === undefined) {
    throw new Error("moto_server was not found on PATH; install it with: pip install 'moto[server]'");
  }
  const choosePort = options.port ?? freeLoopbackPort;
  const taken: number[] = [];
  for (;;) {
    try {
      return await spawnMoto(executable, host, await choosePort(host), options.ownProcessGroup ?? false);
    } catch (error) {
      if (!(error instanceof PortTaken)) throw error;
      taken.push(error.port);
      if (taken.length >= START_ATTEMPTS) {
        throw new Error(
          `moto_server could not bind a port: another process took each of the ${START_ATTEMPTS} free ports it was given (${taken.join(', ')}) first; ` +
            `its last attempt said: ${error.message}`,
          { cause: error },
        );
      }
    }
  }
}

async function spawnMoto(executable: string, host: string, port: number, detached: boolean): Promise<MotoServer> {
  const endpoint = `http://${host}:${port}`;
  const child = spawn(executable, ['-H', host, '-p', String(port)], { stdio: ['ignore', 'pipe', 'pipe'], detached, env: motoEnvironment() });
  // Keep the last few KiB of output for error messages; draining the pipes also keeps moto from blocking.
  let tail = '';
  // Whether it said it bound the port, read line by line on each stream (a line may come in pieces).
  let listening = false;
  const listeningAt = listeningLine(host, port);
  const watch = (stream: NodeJS.ReadableStream | null): void => {
    let partial = '';
    stream?.on('data', (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-4_096);
      if (listening) return;
      const lines = (partial + text).split('\n');
      partial = lines.pop()!.slice(-4_096);
      if (lines.some((line) => listeningAt.test(line))) listening = true;
    });
  };
  watch(child.stdout);
  watch(child.stderr);
  // All of the output has been read once the pipes close ('close'), which can be after the process
  // exits ('exit'); the output of a process that has exited is read when they close, or after
  // OUTPUT_CLOSE_WAIT_MS when something else still holds them open.
  const outputClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const finalOutput = async (): Promise<string> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([outputClosed, new Promise((resolve) => (timer = setTimeout(resolve, OUTPUT_CLOSE_WAIT_MS)))]);
    } finally {
      clearTimeout(timer);
    }
    return tail;
  };
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  // Never leave a server behind when this process exits without stopping it.
  const killOnExit = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', killOnExit);

  const stop = async (): Promise<void> => {
    process.removeListener('exit', killOnExit);
    // pid is undefined when the spawn itself failed: there is nothing to stop.
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    try {
      await done;
    } finally {
      clearTimeout(timer);
    }
  };

  try {
    await Promise.race([waitUntilReady(endpoint, port, child, () => listening, () => tail, finalOutput), spawnError]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, port, stop };
}
