/**
 * `npm run bench:cpu`'s command: its arguments, the run they ask for, and what it prints and
 * returns for the run's report (bench/cpu-main.ts runs it on the process; see bench/cpu.ts).
 */
import { Command } from 'commander';
import { signalExitStatus, type StopSignal } from '../lib/local/signals.js';
import { positiveInteger } from './arguments.js';
import { formatCpuReport, type CpuReport, type measureFunctionCpu } from './cpu.js';

export interface CpuCommandIo {
  /** Runs the measurement (`measureFunctionCpu`). */
  measure: typeof measureFunctionCpu;
  /** Whether moto_server can be started here (`findMotoServer`). */
  motoInstalled: () => boolean;
  out: (line: string) => void;
  err: (line: string) => void;
  /** Aborted, with the stop signal as its reason, when the run is to stop (Ctrl-C). */
  signal?: AbortSignal;
}

export function cpuCommand(): Command {
  return new Command()
    .name('bench:cpu')
    .description("The functions' own CPU time per lifecycle, on the real handlers and SDK clients against moto_server.")
    .option('--lifecycles <n>', 'volume lifecycles to run', positiveInteger, 100)
    .option('--endpoint <url>', 'a running AWS emulator on this machine instead of starting moto_server; the tables, queues and instances the run makes there are deleted when it ends')
    .option('--timeout <seconds>', 'give up on lifecycles still open after this long, once the invocation under way ends (default 60 + 2 per lifecycle)', positiveInteger);
}

/**
 * Parses `argv` (the arguments after the script's name), runs the measurement they ask for and
 * prints its report. Returns the exit status: 0, 1 when some lifecycles did not end in time (the
 * report still printed), 2 when neither moto_server nor `--endpoint` is there, and the signal's
 * (130 for SIGINT) when `io.signal` stopped the run, nothing printed but that. Arguments refused
 * end the process as commander does (status 1, naming the option).
 */
export async function runCpuCommand(argv: readonly string[], io: CpuCommandIo): Promise<number> {
  const options = cpuCommand().parse(argv, { from: 'user' }).opts<{ lifecycles: number; endpoint?: string; timeout?: number }>();
  if (!options.endpoint && !io.motoInstalled()) {
    io.err("bench:cpu needs moto_server (install it with: pip install 'moto[server]') or --endpoint");
    return 2;
  }
  let report: CpuReport;
  try {
    report = await io.measure({
      lifecycles: options.lifecycles,
      ...(options.endpoint ? { endpoint: options.endpoint } : {}),
      ...(options.timeout ? { timeoutMs: options.timeout * 1000 } : {}),
      ...(io.signal ? { signal: io.signal } : {}),
    });
  } catch (error) {
    if (!io.signal?.aborted || error !== io.signal.reason) throw error;
    const signal = io.signal.reason as StopSignal;
    io.err(`stopped by ${signal}; nothing measured`);
    return signalExitStatus(signal);
  }
  io.out(formatCpuReport(report));
  if (report.converged < report.lifecycles) {
    io.err(`${report.lifecycles - report.converged} lifecycles did not end in time; raise --timeout`);
    return 1;
  }
  return 0;
}
