/**
 * `npm run bench`: the scale benchmark. Runs each workload against the provisioner and against
 * the naive design on the same simulated AWS, prints a table per workload, checks the targets,
 * and writes JSON and SVG charts to bench/out/.
 *
 *   npm run bench                      # N = 100 and 1000, burst and steady
 *   npm run bench -- --n 10000         # another size
 *   npm run bench -- --seed 7 --workload burst --design provisioner
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { positiveInteger } from './arguments.js';
import { formatTable, timelineSvg, type DesignResult } from './report.js';
import { runDesign, type DesignName } from './run.js';
import { checkTargets } from './targets.js';
import type { WorkloadSpec } from './workload.js';

function sizes(value: string): number[] {
  return value.split(',').map((part) => positiveInteger(part.trim()));
}

function nonNegative(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0) throw new InvalidArgumentError(`must be a non-negative number, got "${value}"`);
  return n;
}

function share(value: string): number {
  const n = nonNegative(value);
  if (n >= 1) throw new InvalidArgumentError(`must be below 1, got "${value}"`);
  return n;
}

const program = new Command()
  .name('bench')
  .description('Scale benchmark of the provisioner against the naive design, on simulated AWS in virtual time.')
  .option('--n <sizes>', 'volumes per workload, comma-separated', sizes, [100, 1000])
  .option('--seed <seed>', 'random seed; the same seed gives the same results', positiveInteger, 1)
  .option('--workload <kind>', 'burst, steady or both', 'both')
  .option('--design <name>', 'provisioner, naive or both', 'both')
  .option('--rate <perSecond>', 'arrivals per second of the steady workload', nonNegative, 1)
  .option('--hold <seconds>', 'seconds a client keeps each volume attached', nonNegative, 10)
  .option('--duplicate-rate <share>', 'share of SQS deliveries delivered twice', share, 0.01)
  .option('--shards <count>', 'DynamoDB stream shards', positiveInteger, 4)
  .option('--rate-budget <kind>', "provisioner's EC2 rate budget: shared (one for all executor environments) or share (each its own fifth)", 'shared')
  .option('--out <dir>', 'where JSON and SVG go', 'bench/out');

async function main(): Promise<void> {
  program.parse();
  const options = program.opts<{
    n: number[];
    seed: number;
    workload: string;
    design: string;
    rate: number;
    hold: number;
    duplicateRate: number;
    shards: number;
    rateBudget: string;
    out: string;
  }>();
  if (!['burst', 'steady', 'both'].includes(options.workload)) throw new InvalidArgumentError(`--workload: must be burst, steady or both, got "${options.workload}"`);
  if (!['provisioner', 'naive', 'both'].includes(options.design)) throw new InvalidArgumentError(`--design: must be provisioner, naive or both, got "${options.design}"`);
  if (!['shared', 'share'].includes(options.rateBudget)) throw new InvalidArgumentError(`--rate-budget: must be shared or share, got "${options.rateBudget}"`);
  if (options.workload !== 'burst' && !(options.rate > 0)) throw new InvalidArgumentError('--rate: must be positive for the steady workload');
  const designs: DesignName[] = options.design === 'both' ? ['provisioner', 'naive'] : [options.design as DesignName];
  const kinds = options.workload === 'both' ? (['burst', 'steady'] as const) : ([options.workload] as Array<'burst' | 'steady'>);
  mkdirSync(options.out, { recursive: true });

  const all: DesignResult[] = [];
  for (const volumes of options.n) {
    for (const kind of kinds) {
      const workload: WorkloadSpec = {
        name: kind,
        volumes,
        arrival: kind === 'burst' ? { kind: 'burst' } : { kind: 'steady', perSecond: options.rate },
        holdMs: options.hold * 1000,
      };
      const results: DesignResult[] = [];
      for (const design of designs) {
        process.stderr.write(`running ${design}, ${kind}, N = ${volumes}, seed ${options.seed} … `);
        const result = await runDesign({
          design,
          workload,
          seed: options.seed,
          shards: options.shards,
          duplicateRate: options.duplicateRate,
          sharedRateBudget: options.rateBudget === 'shared',
        });
        process.stderr.write(`${(result.wallMs / 1000).toFixed(1)} s\n`);
        results.push(result);
      }
      all.push(...results);
      console.log(`\n${formatTable(results)}\n`);
      const stem = `${kind}-n${volumes}-seed${options.seed}`;
      writeFileSync(join(options.out, `${stem}.json`), JSON.stringify({ workload, results }, null, 2));
      writeFileSync(
        join(options.out, `${stem}.svg`),
        timelineSvg(`Lifecycles by state, ${kind} workload, N = ${volumes} (seed ${options.seed})`, results),
      );
    }
  }
  const checks = checkTargets(all);
  if (checks.length > 0) {
    console.log('| target | measured | met |\n|---|---|---|');
    for (const check of checks) console.log(`| ${check.target} | ${check.measured} | ${check.met === 'not comparable' ? 'not comparable' : check.met ? 'yes' : '**no**'} |`);
  }
  console.log(`\nJSON and SVG in ${options.out}/`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
