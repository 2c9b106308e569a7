/**
 * `npm run bench:cpu`'s command without moto: the run its arguments ask for, the exit status its
 * report gives (1 when some lifecycles did not end in time, the report still printed), and its
 * refusal to start without moto_server or --endpoint. The measurement is a stand-in here; the
 * runs against moto are in test/integration/bench-cpu*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { runCpuCommand } from '../../bench/cpu-command.js';
import type { CpuReport, measureFunctionCpu } from '../../bench/cpu.js';

type MeasureOptions = Parameters<typeof measureFunctionCpu>[0];

const report = (lifecycles: number, converged: number): CpuReport => ({
  lifecycles,
  converged,
  watcher: { invocations: 1, records: 4, cpuMs: 14 },
  executor: { invocations: 1, records: 2, cpuMs: 11 },
  perRequestMs: { ec2DescribeVolumes: 2, dynamodbGetItem: 2, sqsSendMessageBatch: 3 },
  wallMs: 1000,
});

async function command(argv: string[], options: { converged?: number; motoInstalled?: boolean; signal?: AbortSignal; failure?: unknown } = {}) {
  const asked: MeasureOptions[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const status = await runCpuCommand(argv, {
    measure: async (given) => {
      asked.push(given);
      if (options.failure !== undefined) throw options.failure;
      return report(given.lifecycles, options.converged ?? given.lifecycles);
    },
    motoInstalled: () => options.motoInstalled ?? true,
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { status, asked, out: out.join('\n'), err: err.join('\n') };
}

describe('npm run bench:cpu, its arguments and its exit status', () => {
  it('runs 100 lifecycles on a moto_server of its own by default, with the default time', async () => {
    const { status, asked, out, err } = await command([]);
    expect(asked).toEqual([{ lifecycles: 100 }]);
    expect(status).toBe(0);
    expect(out).toContain('lifecycles: 100 of 100 converged (1.0 s of wall time)');
    expect(err).toBe('');
  });

  it('passes --lifecycles, --endpoint and --timeout (in milliseconds) to the run', async () => {
    const { asked } = await command(['--lifecycles', '3', '--endpoint', 'http://127.0.0.1:5000', '--timeout', '90']);
    expect(asked).toEqual([{ lifecycles: 3, endpoint: 'http://127.0.0.1:5000', timeoutMs: 90_000 }]);
  });

  it('runs against --endpoint without moto_server installed', async () => {
    const { status, asked } = await command(['--endpoint', 'http://127.0.0.1:5000'], { motoInstalled: false });
    expect(status).toBe(0);
    expect(asked).toHaveLength(1);
  });

  it('without moto_server and no --endpoint, says what it needs, runs nothing and exits 2', async () => {
    const { status, asked, out, err } = await command(['--lifecycles', '1'], { motoInstalled: false });
    expect(status).toBe(2);
    expect(asked).toEqual([]);
    expect(out).toBe('');
    expect(err).toBe("bench:cpu needs moto_server (install it with: pip install 'moto[server]') or --endpoint");
  });

  it('prints the report and exits 1, saying how many, when some lifecycles did not end in time', async () => {
    const { status, out, err } = await command(['--lifecycles', '4'], { converged: 1 });
    expect(status).toBe(1);
    expect(out).toContain('lifecycles: 1 of 4 converged');
    expect(err).toBe('3 lifecycles did not end in time; raise --timeout');
  });

  it('gives the run its stop signal; stopped by it, says so, prints no report and exits with the signal’s status', async () => {
    const stop = new AbortController();
    stop.abort('SIGINT');
    const { status, asked, out, err } = await command(['--lifecycles', '2'], { signal: stop.signal, failure: 'SIGINT' });
    expect(asked).toEqual([{ lifecycles: 2, signal: stop.signal }]);
    expect(status).toBe(130);
    expect(out).toBe('');
    expect(err).toBe('stopped by SIGINT; nothing measured');
  });

  it('throws a failed run’s error, whether or not a stop was asked for', async () => {
    const failure = new Error('table unreachable');
    await expect(command([], { failure })).rejects.toBe(failure);
    const stop = new AbortController();
    stop.abort('SIGTERM');
    await expect(command([], { failure, signal: stop.signal })).rejects.toBe(failure);
  });
});
