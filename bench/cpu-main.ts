/**
 * `npm run bench:cpu`: the watcher's and executor's own CPU time per lifecycle, measured on the
 * real handlers and SDK clients against moto_server (see bench/cpu.ts and bench/cpu-command.ts).
 *
 *   npm run bench:cpu                         # 100 lifecycles, moto_server started here
 *   npm run bench:cpu -- --lifecycles 300
 *   npm run bench:cpu -- --endpoint http://127.0.0.1:5000   # a running emulator instead
 *
 * A run makes tables, queues and instances of its own in the emulator and deletes them when it
 * ends, also when it fails or gives up on its lifecycles (one stopped by a signal leaves them).
 * Its clients carry the emulator's fixed dummy credentials: the environment's are not needed.
 */
import { findMotoServer } from '../lib/local/moto.js';
import { runCpuCommand } from './cpu-command.js';
import { measureFunctionCpu } from './cpu.js';

process.exitCode = await runCpuCommand(process.argv.slice(2), {
  measure: measureFunctionCpu,
  motoInstalled: () => findMotoServer() !== undefined,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
