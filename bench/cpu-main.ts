/**
 * `npm run bench:cpu`: the watcher's and executor's own CPU time per lifecycle, measured on the
 * real handlers and SDK clients against moto_server (see bench/cpu.ts and bench/cpu-command.ts).
 *
 *   npm run bench:cpu                         # 100 lifecycles, moto_server started here
 *   npm run bench:cpu -- --lifecycles 300
 *   npm run bench:cpu -- --endpoint http://127.0.0.1:5000   # a running emulator instead
 *
 * A run makes tables, queues and instances of its own in the emulator and deletes them when it
 * ends, also when it fails, gives up on its lifecycles or is stopped: Ctrl-C (or SIGTERM, SIGHUP)
 * stops it once the invocation under way has ended; a second one exits at once, leaving them.
 * Its clients carry the emulator's fixed dummy credentials: the environment's are not needed.
 */
import { consoleLog, lineWriter } from '../lib/local/console.js';
import { findMotoServer } from '../lib/local/moto.js';
import { handleStopSignals } from '../lib/local/signals.js';
import { runCpuCommand } from './cpu-command.js';
import { measureFunctionCpu } from './cpu.js';

const stop = new AbortController();
handleStopSignals({ log: consoleLog({ write: lineWriter(process.stderr) }), stop: (signal) => stop.abort(signal), exit: (status) => process.exit(status) });
process.exitCode = await runCpuCommand(process.argv.slice(2), {
  signal: stop.signal,
  measure: measureFunctionCpu,
  motoInstalled: () => findMotoServer() !== undefined,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
