/**
 * `npm run bench:cpu`: the watcher's and executor's own CPU time per lifecycle, measured on the
 * real handlers and SDK clients against moto_server (see bench/cpu.ts).
 *
 *   npm run bench:cpu                         # 100 lifecycles, moto_server started here
 *   npm run bench:cpu -- --lifecycles 300
 *   npm run bench:cpu -- --endpoint http://127.0.0.1:5000   # a running emulator instead
 *
 * A run makes tables, queues and instances of its own in the emulator and deletes them when it
 * ends, also when it fails or gives up on its lifecycles (one stopped by a signal leaves them).
 */
import { Command } from 'commander';
import { findMotoServer } from '../lib/local/moto.js';
import { positiveInteger } from './arguments.js';
import { formatCpuReport, measureFunctionCpu } from './cpu.js';

const program = new Command()
  .name('bench:cpu')
  .description("The functions' own CPU time per lifecycle, on the real handlers and SDK clients against moto_server.")
  .option('--lifecycles <n>', 'volume lifecycles to run', positiveInteger, 100)
  .option('--endpoint <url>', 'a running AWS emulator on this machine instead of starting moto_server; the tables, queues and instances the run makes there are deleted when it ends')
  .option('--timeout <seconds>', 'give up on lifecycles still open after this long, once the invocation under way ends (default 60 + 2 per lifecycle)', positiveInteger)
  .parse();

const options = program.opts<{ lifecycles: number; endpoint?: string; timeout?: number }>();
if (!options.endpoint && !findMotoServer()) {
  console.error("bench:cpu needs moto_server (install it with: pip install 'moto[server]') or --endpoint");
  process.exit(2);
}
process.env.AWS_ACCESS_KEY_ID ??= 'testing';
process.env.AWS_SECRET_ACCESS_KEY ??= 'testing';
const report = await measureFunctionCpu({
  lifecycles: options.lifecycles,
  ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  ...(options.timeout ? { timeoutMs: options.timeout * 1000 } : {}),
});
console.log(formatCpuReport(report));
if (report.converged < report.lifecycles) {
  console.error(`${report.lifecycles - report.converged} lifecycles did not end in time; raise --timeout`);
  process.exitCode = 1;
}
