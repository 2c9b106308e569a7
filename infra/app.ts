import * as fs from 'node:fs';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { EbsProvisionerStack } from './stack.js';

/** Reads a context value given with `-c key=value` or in cdk.json. */
function context(app: App, key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  return value === undefined || value === null || value === '' ? undefined : String(value);
}

function numberContext(app: App, key: string): number | undefined {
  const raw = context(app, key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`context ${key} must be a positive integer, got "${raw}"`);
  return value;
}

function oneOf<T extends string>(app: App, key: string, allowed: readonly T[]): T | undefined {
  const raw = context(app, key);
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw)) throw new Error(`context ${key} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

/** Prints the size of each function's bundle, so growth is seen at every synth. */
function printBundleSizes(outdir: string): void {
  for (const file of fs.readdirSync(outdir).filter((name) => name.endsWith('.template.json'))) {
    const template = JSON.parse(fs.readFileSync(path.join(outdir, file), 'utf8')) as {
      Resources: Record<string, { Type: string; Metadata?: Record<string, string> }>;
    };
    for (const [logicalId, resource] of Object.entries(template.Resources)) {
      const assetPath = resource.Metadata?.['aws:asset:path'];
      if (resource.Type !== 'AWS::Lambda::Function' || !assetPath) continue;
      const bundle = path.join(outdir, assetPath, 'index.mjs');
      if (!fs.existsSync(bundle)) continue;
      const kib = (fs.statSync(bundle).size / 1024).toFixed(1);
      console.error(`bundle ${resource.Metadata?.['aws:cdk:path']?.split('/')[1] ?? logicalId}: index.mjs ${kib} KiB`);
    }
  }
}

const app = new App();
const stackName = context(app, 'stackName') ?? 'EbsProvisioner';
new EbsProvisionerStack(app, stackName, {
  ownerTagValue: context(app, 'ownerTagValue'),
  alarmEmail: context(app, 'alarmEmail'),
  apiAuthorization: oneOf(app, 'apiAuthorization', ['iam', 'none'] as const),
  executorMaxConcurrency: numberContext(app, 'executorMaxConcurrency'),
  ec2RateBudget: numberContext(app, 'ec2RateBudget'),
  logRetentionDays: numberContext(app, 'logRetentionDays') as logs.RetentionDays | undefined,
  tableRemovalPolicy: oneOf(app, 'tableRemovalPolicy', ['retain', 'destroy'] as const),
  deletionProtection: context(app, 'deletionProtection') === undefined ? undefined : context(app, 'deletionProtection') === 'true',
  kmsKeyArn: context(app, 'kmsKeyArn'),
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
const assembly = app.synth();
printBundleSizes(assembly.directory);
