/**
 * `npm start`: the whole pipeline on this machine.
 *
 *   npm start                              in-memory backend (nothing but Node needed)
 *   npm start -- --backend moto            real AWS wire protocols against moto_server
 *   npm start -- --backend moto --endpoint http://127.0.0.1:4566   any AWS emulator
 */
import { Command, Option } from 'commander';
import { wholeNumberOption } from '../command-line.js';
import { consoleLog } from './console.js';
import { handleStopSignals } from './signals.js';
import { startLocalRuntime, type Backend, type LocalRuntime } from './runtime.js';


const program = new Command('ebs-provisioner-local')
  .description('Run the provisioner pipeline locally: HTTP API, watcher, executor and reconciler.')
  .addOption(new Option('--backend <backend>', 'where records, messages and volumes live').choices(['memory', 'moto']).default('memory'))
  .option('--port <port>', 'HTTP API port on 127.0.0.1 (0: any free port)', wholeNumberOption({ min: 0, max: 65535 }), 3000)
  .option('--demo-instances <count>', 'EC2 instances to launch for trying attachments', wholeNumberOption({ min: 0 }), 2)
  .option('--endpoint <url>', 'AWS endpoint for the moto backend instead of starting moto_server (default AWS_ENDPOINT_URL)')
  .option('--reconcile-seconds <seconds>', 'reconciler period', wholeNumberOption({ min: 1 }))
  .option('--verbose', 'log debug lines too')
  .parse();

const options = program.opts<{ backend: Backend; port: number; demoInstances: number; endpoint?: string; reconcileSeconds?: number; verbose?: boolean }>();
const log = consoleLog({ level: options.verbose ? 'debug' : 'info' });
const endpoint = options.endpoint ?? (process.env.AWS_ENDPOINT_URL || undefined);

// Listen for Ctrl-C before starting, so a stop during start-up still shuts moto_server down.
// SIGHUP too: a closed terminal no longer reaches moto_server (a process group of its own) directly.
const started: { runtime?: LocalRuntime } = {};
function shutdown(running: LocalRuntime): void {
  running.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      log.error('stopping failed', { error: String(error) });
      process.exit(1);
    },
  );
}
const stopRequested = handleStopSignals({
  log,
  stop: () => {
    if (started.runtime) shutdown(started.runtime);
  },
  exit: (status) => process.exit(status),
});

// The first line names the backend; a stop from here on is handled.
log.info(`ebs-provisioner local runtime: backend=${options.backend}${options.backend === 'moto' ? ` endpoint=${endpoint ?? 'moto_server (starting)'}` : ''}`);

const runtime = await startLocalRuntime({
  backend: options.backend,
  port: options.port,
  demoInstances: options.demoInstances,
  log,
  ...(endpoint ? { endpoint } : {}),
  ...(options.reconcileSeconds ? { reconcileEveryMs: options.reconcileSeconds * 1000 } : {}),
}).catch((error: unknown) => {
  log.error('could not start', { error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});

started.runtime = runtime;
if (stopRequested()) shutdown(runtime);
else {
  if (runtime.aws) log.info(`AWS endpoint ${runtime.aws.endpoint}, table ${runtime.aws.tableName}`);
  log.info(`HTTP API on ${runtime.apiUrl} (OpenAPI document at ${runtime.apiUrl}/openapi.json)`);
  log.info(`demo instances in us-east-1a: ${runtime.instanceIds.join(' ') || 'none'}`);
  log.info(`try: npx ebs-provisioner --endpoint ${runtime.apiUrl} volumes create --size 20 --type gp3 --attach ${runtime.instanceIds[0] ?? 'i-…'}`);
  log.info('Ctrl-C stops');
}
