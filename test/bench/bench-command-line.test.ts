/**
 * `npm run bench` (bench/main.ts) and the arguments of `npm run bench:cpu` (bench/cpu-main.ts) as
 * commands: short runs, their files, their help, and arguments refused with a message that names
 * the option, before anything is run or written.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function run(script: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', script, ...args], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const scratch: string[] = [];
function outDir(): string {
  const parent = mkdtempSync(join(tmpdir(), 'bench-command-'));
  scratch.push(parent);
  // Not yet there: a refused command must not create it.
  return join(parent, 'out');
}
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

interface WrittenRun {
  workload: { name: string; volumes: number; arrival: { kind: string; perSecond?: number }; holdMs: number };
  results: { design: string; seed?: number }[];
}

describe('npm run bench', () => {
  it('runs the chosen workload and design at each --n, printing a table and the targets, and writes JSON and SVG named for workload, size and seed', () => {
    const out = outDir();
    const { status, stdout, stderr } = run('bench/main.ts', ['--n', '2,3', '--workload', 'burst', '--design', 'provisioner', '--seed', '7', '--out', out]);
    expect(stderr).toMatch(/running provisioner, burst, N = 2, seed 7/);
    expect(stderr).toMatch(/running provisioner, burst, N = 3, seed 7/);
    expect(stderr).not.toMatch(/naive|steady/);
    expect(status).toBe(0);
    expect(stdout).toMatch(/^\| target \| measured \| met \|$/m);
    expect(stdout).toContain(`JSON and SVG in ${out}/`);
    expect(readdirSync(out).sort()).toEqual(['burst-n2-seed7.json', 'burst-n2-seed7.svg', 'burst-n3-seed7.json', 'burst-n3-seed7.svg']);
    const written = JSON.parse(readFileSync(join(out, 'burst-n3-seed7.json'), 'utf8')) as WrittenRun;
    expect(written.workload).toEqual({ name: 'burst', volumes: 3, arrival: { kind: 'burst' }, holdMs: 10_000 });
    expect(written.results.map((result) => result.design)).toEqual(['provisioner']);
    expect(readFileSync(join(out, 'burst-n3-seed7.svg'), 'utf8')).toMatch(/^<svg[\s\S]*N = 3 \(seed 7\)[\s\S]*<\/svg>\s*$/);
  });

  it('gives the steady workload its --rate and --hold, and runs both designs by default', () => {
    const out = outDir();
    const { status, stderr } = run('bench/main.ts', ['--n', '2', '--workload', 'steady', '--rate', '4', '--hold', '1.5', '--out', out]);
    expect(status).toBe(0);
    expect(stderr).toMatch(/running provisioner, steady, N = 2, seed 1/);
    expect(stderr).toMatch(/running naive, steady, N = 2, seed 1/);
    const written = JSON.parse(readFileSync(join(out, 'steady-n2-seed1.json'), 'utf8')) as WrittenRun;
    expect(written.workload).toEqual({ name: 'steady', volumes: 2, arrival: { kind: 'steady', perSecond: 4 }, holdMs: 1500 });
    expect(written.results.map((result) => result.design)).toEqual(['provisioner', 'naive']);
  });

  it('takes --rate 0 for the burst workload alone, which has no arrival rate', () => {
    const out = outDir();
    const { status, stdout } = run('bench/main.ts', ['--n', '1', '--workload', 'burst', '--design', 'naive', '--rate', '0', '--out', out]);
    expect(status).toBe(0);
    // The targets are the provisioner's: none for the naive design alone.
    expect(stdout).not.toMatch(/\| target/);
    expect(readdirSync(out).sort()).toEqual(['burst-n1-seed1.json', 'burst-n1-seed1.svg']);
  });

  it('the same seed gives the same results, run again into the same --out; the seed, --duplicate-rate, --shards and --rate-budget each reach the simulation', () => {
    const out = outDir();
    /** One provisioner burst run of 5 volumes: its one target printed, its result as written (less its wall time). */
    const results = (...args: string[]) => {
      const { status, stdout } = run('bench/main.ts', ['--n', '5', '--workload', 'burst', '--design', 'provisioner', '--out', out, ...args]);
      expect(status).toBe(0);
      expect(stdout).toMatch(/^\| burst N=5: every lifecycle converged, nothing leaked, no duplicate, no double attach \| 5\/5 converged.* \| yes \|$/m);
      const seed = /--seed/.test(args.join(' ')) ? args[args.indexOf('--seed') + 1] : '1';
      const { results: [result] } = JSON.parse(readFileSync(join(out, `burst-n5-seed${seed}.json`), 'utf8')) as { results: Array<Record<string, unknown>> };
      const { wallMs: _wallMs, ...rest } = result!;
      return rest;
    };
    const first = results('--seed', '3');
    expect(first.seed).toBe(3);
    expect(results('--seed', '3')).toEqual(first);
    const { seed: _seed, ...firstWithoutSeed } = first;
    const { seed: otherSeed, ...other } = results('--seed', '4');
    expect(otherSeed).toBe(4);
    expect(other).not.toEqual(firstWithoutSeed);
    for (const option of [['--duplicate-rate', '0.5'], ['--shards', '1']]) {
      expect(results('--seed', '3', ...option), option.join(' ')).not.toEqual(first);
    }
    // The default is the shared budget, whose every take is a conditional write to its table; each
    // environment spending its own share writes nothing for its tokens.
    expect(results('--seed', '3', '--rate-budget', 'shared')).toEqual(first);
    expect(results('--seed', '3', '--rate-budget', 'share').dynamodbWriteUnits).toBeLessThan(first.dynamodbWriteUnits as number);
  });

  it('--help lists every option and exits 0, running nothing', () => {
    const { status, stdout } = run('bench/main.ts', ['--help']);
    expect(status).toBe(0);
    for (const option of ['--n', '--seed', '--workload', '--design', '--rate', '--hold', '--duplicate-rate', '--shards', '--rate-budget', '--out']) {
      expect(stdout).toContain(option);
    }
    expect(stdout).not.toMatch(/\| target/);
  });

  it.each([
    [['--n', '0'], /--n.*must be a positive integer, got "0"/],
    [['--n', '2,1.5'], /--n.*must be a positive integer, got "1.5"/],
    [['--seed', '0'], /--seed.*must be a positive integer, got "0"/],
    [['--shards', '-1'], /--shards.*must be a positive integer, got "-1"/],
    [['--hold', '-1'], /--hold.*must be a non-negative number, got "-1"/],
    [['--rate', 'fast'], /--rate.*must be a non-negative number, got "fast"/],
    [['--duplicate-rate', '1'], /--duplicate-rate.*must be below 1, got "1"/],
    [['--workload', 'spiky'], /--workload: must be burst, steady or both, got "spiky"/],
    [['--design', 'clever'], /--design: must be provisioner, naive or both, got "clever"/],
    [['--rate-budget', 'none'], /--rate-budget: must be shared or share, got "none"/],
    [['--workload', 'steady', '--rate', '0'], /--rate: must be positive for the steady workload/],
    [['--rate', '0'], /--rate: must be positive for the steady workload/],
  ])('refuses %j with a message naming it, exits 1, and writes nothing', (args, message) => {
    const out = outDir();
    const { status, stdout, stderr } = run('bench/main.ts', ['--n', '1', ...args, '--out', out]);
    expect(status).toBe(1);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/running /);
    expect(stdout).toBe('');
    expect(existsSync(out)).toBe(false);
  });
});

describe('npm run bench:cpu', () => {
  it.each([
    [['--lifecycles', '0'], /--lifecycles.*must be a positive integer, got "0"/],
    [['--timeout', '2.5'], /--timeout.*must be a positive integer, got "2.5"/],
  ])('refuses %j with a message naming it and exits 1', (args, message) => {
    const { status, stderr } = run('bench/cpu-main.ts', args);
    expect(status).toBe(1);
    expect(stderr).toMatch(message);
  });

  it('without moto_server on PATH and no --endpoint, says what it needs and exits 2', () => {
    // PATH holding node's directory alone, where no moto_server is.
    const path = dirname(process.execPath);
    expect(existsSync(join(path, 'moto_server'))).toBe(false);
    const { status, stderr } = run('bench/cpu-main.ts', ['--lifecycles', '1'], { ...process.env, PATH: path });
    expect(status).toBe(2);
    expect(stderr).toContain("bench:cpu needs moto_server (install it with: pip install 'moto[server]') or --endpoint");
  });
});
