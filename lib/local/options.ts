/**
 * `npm start`'s command line: its options, read and checked before anything starts, and what a
 * failed start tells the user to do.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { MAX_TIMER_SECONDS, wholeNumberOption } from '../command-line.js';
import { RECONCILER } from '../settings.js';
import type { Backend } from './runtime.js';

export interface LocalOptions {
  backend: Backend;
  port: number;
  demoInstances: number;
  /** The moto backend's AWS endpoint and where it was given; absent: the runtime starts moto_server. */
  endpoint?: { url: string; from: '--endpoint' | 'AWS_ENDPOINT_URL' };
  reconcileSeconds: number;
  verbose: boolean;
  /** Options given that have no effect, to be logged as warnings. */
  warnings: string[];
}

/**
 * The most demo instances a start launches: plenty to try attachments on, all listed in one
 * start-up line. A count beyond it is a slip of the keyboard: a few million filled the memory
 * backend's heap, and crashed it, before the API started.
 */
export const MAX_DEMO_INSTANCES = 100;

const URL_EXPECTED = 'expected an http:// or https:// URL, such as http://127.0.0.1:4566';

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}

function endpointOption(value: string): string {
  if (!isHttpUrl(value)) throw new InvalidArgumentError(URL_EXPECTED);
  return value;
}

export function localCommand(): Command {
  return new Command('ebs-provisioner-local')
    .description('Run the provisioner pipeline locally: HTTP API, watcher, executor and reconciler.')
    .addOption(new Option('--backend <backend>', 'where records, messages and volumes live').choices(['memory', 'moto']).default('memory'))
    .option('--port <port>', 'HTTP API port on 127.0.0.1 (0 picks a free one)', wholeNumberOption({ min: 0, max: 65535 }), 3000)
    .option('--demo-instances <count>', `EC2 instances to launch for trying attachments (at most ${MAX_DEMO_INSTANCES})`, wholeNumberOption({ min: 0, max: MAX_DEMO_INSTANCES }), 2)
    .option('--endpoint <url>', 'AWS endpoint for the moto backend instead of starting moto_server (default AWS_ENDPOINT_URL)', endpointOption)
    // A longer period than a timer holds would run a pass every millisecond.
    .option('--reconcile-seconds <seconds>', `reconciler period (at most ${MAX_TIMER_SECONDS}, about 24 days)`, wholeNumberOption({ min: 1, max: MAX_TIMER_SECONDS }), RECONCILER.intervalMinutes * 60)
    .option('--verbose', 'log debug lines too (each poller batch and how it was handled)')
    .showHelpAfterError('(run with --help for usage)');
}

/**
 * Reads `argv` (the arguments after the command) and `env`. A bad option, or a bad
 * AWS_ENDPOINT_URL where it would be used, is a usage error naming it: commander prints it and
 * exits 1, or throws a CommanderError when `configure` sets `exitOverride()`.
 */
export function readLocalOptions(argv: readonly string[], env: NodeJS.ProcessEnv, configure?: (command: Command) => void): LocalOptions {
  const command = localCommand();
  configure?.(command);
  command.parse(argv, { from: 'user' });
  const given = command.opts<{ backend: Backend; port: number; demoInstances: number; endpoint?: string; reconcileSeconds: number; verbose?: boolean }>();
  const warnings: string[] = [];
  let endpoint: LocalOptions['endpoint'];
  if (given.backend === 'moto') {
    if (given.endpoint) endpoint = { url: given.endpoint, from: '--endpoint' };
    else if (env.AWS_ENDPOINT_URL) {
      if (!isHttpUrl(env.AWS_ENDPOINT_URL)) {
        command.error(`error: AWS_ENDPOINT_URL '${env.AWS_ENDPOINT_URL}' is invalid: ${URL_EXPECTED}; correct or unset it, or give --endpoint`);
      }
      endpoint = { url: env.AWS_ENDPOINT_URL, from: 'AWS_ENDPOINT_URL' };
    }
  } else if (given.endpoint) {
    warnings.push(`--endpoint is ignored with --backend ${given.backend}: it names the AWS endpoint of --backend moto`);
  }
  return {
    backend: given.backend,
    port: given.port,
    demoInstances: given.demoInstances,
    ...(endpoint ? { endpoint } : {}),
    reconcileSeconds: given.reconcileSeconds,
    verbose: given.verbose ?? false,
    warnings,
  };
}

/** Network errors that mean nothing answered at an address. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT']);

/** Why the runtime could not start, saying what to do where the cause is the user's to fix. */
export function startFailureMessage(error: unknown, options: Pick<LocalOptions, 'port' | 'endpoint'>): string {
  const message = error instanceof Error ? error.message : String(error);
  const { code, name, syscall } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; name?: unknown; syscall?: unknown };
  if (syscall === 'listen' && (code === 'EADDRINUSE' || code === 'EACCES')) {
    const why = code === 'EADDRINUSE' ? 'is in use' : 'may not be used by this user';
    return `port ${options.port} on 127.0.0.1 ${why}: give another with --port N (--port 0 picks a free one)`;
  }
  if (options.endpoint) {
    const { url, from } = options.endpoint;
    if ((typeof code === 'string' && UNREACHABLE.has(code)) || name === 'TimeoutError') {
      return (
        `nothing answers at the AWS endpoint ${url} (from ${from}): ${message}. Start the emulator there, ` +
        'or run without --endpoint and AWS_ENDPOINT_URL to have the runtime start moto_server'
      );
    }
    return `the AWS endpoint ${url} (from ${from}) failed: ${message}`;
  }
  return message;
}
