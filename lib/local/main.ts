/**
 * `npm start`: the whole pipeline on this machine.
 *
 *   npm start                              in-memory backend (nothing but Node needed)
 *   npm start -- --backend moto            real AWS wire protocols against moto_server
 *   npm start -- --backend moto --endpoint http://127.0.0.1:4566   any AWS emulator
 */
import { consoleLog, tryCommand } from './console.js';
import { LOCAL_AVAILABILITY_ZONE } from './moto-backend.js';
import { readLocalOptions, startFailureMessage } from './options.js';
import { startLocalRuntime, type LocalRuntime } from './runtime.js';
import { handleStopSignals } from './signals.js';

const options = readLocalOptions(process.argv.slice(2), process.env);
const log = consoleLog({ level: options.verbose ? 'debug' : 'info' });
const endpoint = options.endpoint?.url;

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
for (const warning of options.warnings) log.warn(warning);

const runtime = await startLocalRuntime({
  backend: options.backend,
  port: options.port,
  demoInstances: options.demoInstances,
  log,
  ...(endpoint ? { endpoint } : {}),
  reconcileEveryMs: options.reconcileSeconds * 1000,
}).catch((error: unknown) => {
  log.error(`could not start: ${startFailureMessage(error, options)}`);
  process.exit(1);
});

started.runtime = runtime;
if (stopRequested()) shutdown(runtime);
else {
  if (runtime.aws) log.info(`AWS endpoint ${runtime.aws.endpoint}, table ${runtime.aws.tableName}`);
  log.info(`HTTP API on ${runtime.apiUrl} (OpenAPI document at ${runtime.apiUrl}/openapi.json)`);
  log.info(`demo instances in ${LOCAL_AVAILABILITY_ZONE}: ${runtime.instanceIds.join(' ') || 'none'}`);
  log.info(`try: ${tryCommand(runtime.apiUrl, runtime.instanceIds, LOCAL_AVAILABILITY_ZONE)}`);
  log.info('Ctrl-C stops');
}
