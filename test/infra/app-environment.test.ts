/**
 * The CDK app (infra/app.ts) as `cdk synth` runs it: its one stack takes the account and Region of
 * the deploying credentials' environment (CDK_DEFAULT_ACCOUNT, CDK_DEFAULT_REGION, which the CDK
 * CLI sets from them), and the name `-c stackName=` gives.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

it('synthesizes one stack, named by -c stackName=, in the account and Region of the deploying credentials', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'ebs-provisioner-app-env-'));
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../../infra/app.ts', import.meta.url))], {
      encoding: 'utf8',
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        CDK_DEFAULT_ACCOUNT: '111122223333',
        CDK_DEFAULT_REGION: 'eu-west-3',
        // Without bundling: the functions' code is not under test here.
        CDK_CONTEXT_JSON: JSON.stringify({ stackName: 'Team-A', 'aws:cdk:bundling-stacks': [] }),
      },
    });
    expect(run.stderr).not.toMatch(/^error:/m);
    expect(run.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, { type: string; environment?: string }> };
    const stacks = Object.entries(manifest.artifacts).filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack');
    expect(stacks).toEqual([['Team-A', expect.objectContaining({ environment: 'aws://111122223333/eu-west-3' })]]);
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}, 60_000);
