/**
 * Deployment options: parsing from CDK context, defaults and field-named errors, and one
 * synthesis (without bundling) with every option away from its default.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkContextKeys, DEFAULT_STACK_NAME, optionsFromContext, resolveOptions, stackNameFromContext } from '../../infra/config.js';
import { ec2MutationStatements } from '../../infra/constructs/ec2-policy.js';
import { DEFAULT_ENGINE_CONFIG, resolveEngineConfig } from '../../lib/engine/config.js';
import { readFunctionEnvironment } from '../../lib/functions/environment.js';
import { EXECUTOR, OWNERSHIP_TAGS } from '../../lib/settings.js';
import { acknowledgements, actionsOf, removeSynthesized, resourceId, roleStatements, synthesize, TEST_ENV, unneededAcknowledgements, type Synthesized } from './synth.js';

// The cloud assemblies written for these tests go with them.
afterAll(removeSynthesized);

const KEY = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('resolveOptions', () => {
  it('defaults: owner tag is the stack name, IAM auth, settings concurrency, EC2\'s standard refill, no single rate budget, retain', () => {
    expect(resolveOptions({}, 'Prod')).toEqual({
      ownerTagValue: 'Prod',
      alarmEmail: undefined,
      apiAuthorization: 'iam',
      executorMaxConcurrency: EXECUTOR.maxConcurrency,
      ec2RefillPerSecond: 5,
      ec2RateBudget: undefined,
      logRetentionDays: 30,
      tableRemovalPolicy: 'retain',
      deletionProtection: true,
      kmsKeyArn: undefined,
      reconcilerScanSegments: undefined,
      restorableSnapshotOwners: undefined,
      attachableInstanceTag: undefined,
    });
    // Not given: the policy then restores snapshots of the stack's own account only, and attaches to any instance.
    expect(Object.keys(resolveOptions({}, 'Prod'))).toEqual(expect.arrayContaining(['restorableSnapshotOwners', 'attachableInstanceTag']));
  });

  it.each([
    [{ ownerTagValue: 'bad\u0000tag' }, /ownerTagValue/],
    [{ alarmEmail: 'not-an-address' }, /alarmEmail/],
    [{ apiAuthorization: 'cognito' as never }, /apiAuthorization/],
    [{ executorMaxConcurrency: 1 }, /executorMaxConcurrency/],
    [{ executorMaxConcurrency: 2.5 }, /executorMaxConcurrency/],
    [{ ec2RateBudget: 0 }, /ec2RateBudget/],
    [{ ec2RefillPerSecond: -5 }, /ec2RefillPerSecond/],
    [{ logRetentionDays: 31 }, /logRetentionDays/],
    [{ tableRemovalPolicy: 'snapshot' as never }, /tableRemovalPolicy/],
    // Deletion protection is on unless turned off, and would make the stack's deletion fail.
    [{ tableRemovalPolicy: 'destroy' as const }, /tableRemovalPolicy=destroy needs deletionProtection=false/],
    [{ tableRemovalPolicy: 'destroy' as const, deletionProtection: true }, /tableRemovalPolicy=destroy needs deletionProtection=false/],
    [{ kmsKeyArn: 'arn:aws:kms:eu-west-1:123456789012:alias/ebs' }, /kmsKeyArn/],
    [{ reconcilerScanSegments: 0 }, /reconcilerScanSegments/],
    [{ reconcilerScanSegments: 2.5 }, /reconcilerScanSegments/],
    [{ reconcilerScanSegments: 1_000_001 }, /reconcilerScanSegments/],
    [{ restorableSnapshotOwners: [] }, /restorableSnapshotOwners/],
    [{ restorableSnapshotOwners: ['12345'] }, /restorableSnapshotOwners/],
    [{ restorableSnapshotOwners: ['self'] }, /restorableSnapshotOwners/],
    [{ restorableSnapshotOwners: ['111122223333', ''] }, /restorableSnapshotOwners/],
    // '*' means any owner, so only alone.
    [{ restorableSnapshotOwners: ['*', 'amazon'] }, /restorableSnapshotOwners/],
    [{ restorableSnapshotOwners: '111122223333' as never }, /restorableSnapshotOwners/],
    [{ attachableInstanceTag: 'env' }, /attachableInstanceTag/],
    [{ attachableInstanceTag: '=prod' }, /attachableInstanceTag/],
    [{ attachableInstanceTag: 'aws:cloudformation:stack-name=x' }, /attachableInstanceTag/],
    [{ attachableInstanceTag: 'AWS:reserved=x' }, /attachableInstanceTag/],
    [{ attachableInstanceTag: `${'k'.repeat(128)}=v` }, /attachableInstanceTag/],
    [{ attachableInstanceTag: `k=${'v'.repeat(257)}` }, /attachableInstanceTag/],
    // Spaces alone: no deployment's owner tag, no instance tag anyone means.
    [{ ownerTagValue: ' ' }, /ownerTagValue must be .*not only spaces/],
    [{ ownerTagValue: '   ' }, /ownerTagValue must be .*not only spaces/],
    [{ ownerTagValue: '\u3000' }, /ownerTagValue must be .*not only spaces/],
    [{ attachableInstanceTag: ' =x' }, /attachableInstanceTag must be .*not only spaces/],
    [{ attachableInstanceTag: '  =' }, /attachableInstanceTag must be .*not only spaces/],
    [{ attachableInstanceTag: '\t=x' }, /attachableInstanceTag must be .*not only spaces/],
  ])('rejects %j naming the option', (options, field) => {
    expect(() => resolveOptions(options, 'Prod')).toThrow(field);
  });

  it('a KMS key must be in the stack\'s Region when that is known at synthesis', () => {
    const elsewhere = KEY.replace(':eu-west-1:', ':us-east-1:');
    expect(() => resolveOptions({ kmsKeyArn: elsewhere }, 'Prod', 'eu-west-1')).toThrow(/kmsKeyArn must be a key in the stack's Region eu-west-1, got one in us-east-1/);
    expect(resolveOptions({ kmsKeyArn: KEY }, 'Prod', 'eu-west-1').kmsKeyArn).toBe(KEY);
    // An environment-agnostic stack learns its Region at deploy time.
    expect(resolveOptions({ kmsKeyArn: elsewhere }, 'Prod').kmsKeyArn).toBe(elsewhere);
    expect(() => synthesize({ kmsKeyArn: elsewhere }, { bundle: false })).toThrow(/kmsKeyArn must be a key in the stack's Region/);
    expect(() => synthesize({ kmsKeyArn: elsewhere, env: {} }, { bundle: false })).not.toThrow();
  }, 60_000);

  it('restorable snapshot owners: account ids and amazon (repeats dropped), or \'*\' alone for any', () => {
    expect(resolveOptions({ restorableSnapshotOwners: ['111122223333', 'amazon', '111122223333'] }, 'Prod').restorableSnapshotOwners).toEqual(['111122223333', 'amazon']);
    expect(resolveOptions({ restorableSnapshotOwners: ['*'] }, 'Prod').restorableSnapshotOwners).toEqual(['*']);
  });

  it('attachable instance tag: the key up to the first =, the value after it (may be empty, may hold =)', () => {
    expect(resolveOptions({ attachableInstanceTag: 'ebs-provisioner:attach=yes' }, 'Prod').attachableInstanceTag).toEqual({ key: 'ebs-provisioner:attach', value: 'yes' });
    expect(resolveOptions({ attachableInstanceTag: 'Role=' }, 'Prod').attachableInstanceTag).toEqual({ key: 'Role', value: '' });
    expect(resolveOptions({ attachableInstanceTag: 'a=b=c' }, 'Prod').attachableInstanceTag).toEqual({ key: 'a', value: 'b=c' });
    // Spaces inside a key or value, or a value of spaces, are tags an instance can carry.
    expect(resolveOptions({ attachableInstanceTag: 'My Team= ' }, 'Prod').attachableInstanceTag).toEqual({ key: 'My Team', value: ' ' });
    expect(resolveOptions({ ownerTagValue: 'team a' }, 'Prod').ownerTagValue).toBe('team a');
    expect(resolveOptions({ attachableInstanceTag: `${'k'.repeat(127)}=${'v'.repeat(256)}` }, 'Prod').attachableInstanceTag).toEqual({ key: 'k'.repeat(127), value: 'v'.repeat(256) });
    // Characters are code points, as EC2 counts them: 127 of them that each take two UTF-16 units are a key.
    expect(resolveOptions({ attachableInstanceTag: `${'𠀀'.repeat(127)}=${'𠀀'.repeat(256)}` }, 'Prod').attachableInstanceTag).toEqual({ key: '𠀀'.repeat(127), value: '𠀀'.repeat(256) });
  });

  it('accepts destroy with deletion protection off, and retain either way', () => {
    expect(resolveOptions({ tableRemovalPolicy: 'destroy', deletionProtection: false }, 'Prod')).toMatchObject({ tableRemovalPolicy: 'destroy', deletionProtection: false });
    expect(resolveOptions({ deletionProtection: false }, 'Prod')).toMatchObject({ tableRemovalPolicy: 'retain', deletionProtection: false });
  });

  it('stops synthesis of a table that would be deleted with the stack but is protected', () => {
    const context = { tableRemovalPolicy: 'destroy' } as Record<string, unknown>;
    expect(() => synthesize(optionsFromContext((key) => context[key]), { bundle: false })).toThrow(/tableRemovalPolicy=destroy needs deletionProtection=false/);
  });
});

describe('optionsFromContext', () => {
  it('reads strings from the command line and typed values from cdk.json', () => {
    const app = new App({
      context: { ownerTagValue: 'team-a', executorMaxConcurrency: '10', ec2RefillPerSecond: '20', ec2RateBudget: 0.25, deletionProtection: 'false', apiAuthorization: 'none', alarmEmail: '', reconcilerScanSegments: '16' },
    });
    expect(optionsFromContext((key) => app.node.tryGetContext(key))).toEqual({
      ownerTagValue: 'team-a',
      alarmEmail: undefined,
      apiAuthorization: 'none',
      executorMaxConcurrency: 10,
      ec2RefillPerSecond: 20,
      ec2RateBudget: 0.25,
      logRetentionDays: undefined,
      tableRemovalPolicy: undefined,
      deletionProtection: false,
      kmsKeyArn: undefined,
      reconcilerScanSegments: 16,
      restorableSnapshotOwners: undefined,
      attachableInstanceTag: undefined,
    });
  });

  it('restorable snapshot owners: comma-separated on the command line, a JSON array in cdk.json; the instance tag as key=value', () => {
    const fromCommandLine = new App({ context: { restorableSnapshotOwners: '111122223333, amazon', attachableInstanceTag: 'Team=storage' } });
    expect(optionsFromContext((key) => fromCommandLine.node.tryGetContext(key))).toMatchObject({
      restorableSnapshotOwners: ['111122223333', 'amazon'],
      attachableInstanceTag: 'Team=storage',
    });
    const fromCdkJson = new App({ context: { restorableSnapshotOwners: ['111122223333', 'amazon'] } });
    expect(optionsFromContext((key) => fromCdkJson.node.tryGetContext(key)).restorableSnapshotOwners).toEqual(['111122223333', 'amazon']);
    expect(optionsFromContext((key) => (key === 'restorableSnapshotOwners' ? '*' : undefined)).restorableSnapshotOwners).toEqual(['*']);
    // An empty entry (a stray comma) is refused when the options are resolved.
    const stray = optionsFromContext((key) => (key === 'restorableSnapshotOwners' ? '111122223333,' : undefined));
    expect(() => resolveOptions(stray, 'Prod')).toThrow(/restorableSnapshotOwners must be 12-digit account ids or amazon/);
  });

  it('reads numbers from the command line as decimal only: a hexadecimal, binary or octal literal is refused, not converted', () => {
    const read = (key: string, value: string) => optionsFromContext((k) => (k === key ? value : undefined));
    expect(read('executorMaxConcurrency', ' 10 ').executorMaxConcurrency).toBe(10);
    expect(read('ec2RateBudget', '.25').ec2RateBudget).toBe(0.25);
    expect(read('ec2RefillPerSecond', '1e1').ec2RefillPerSecond).toBe(10);
    expect(() => read('executorMaxConcurrency', '0x10')).toThrow(/executorMaxConcurrency must be a decimal number, got "0x10"/);
    expect(() => read('logRetentionDays', '0b11110')).toThrow(/logRetentionDays must be a decimal number/);
    expect(() => read('reconcilerScanSegments', '0o20')).toThrow(/reconcilerScanSegments must be a decimal number/);
    expect(() => read('ec2RefillPerSecond', 'Infinity')).toThrow(/ec2RefillPerSecond must be a decimal number/);
  });

  it('names the option with a value of the wrong type', () => {
    expect(() => optionsFromContext((key) => (key === 'executorMaxConcurrency' ? 'many' : undefined))).toThrow(/executorMaxConcurrency must be a decimal number/);
    expect(() => optionsFromContext((key) => (key === 'deletionProtection' ? 'yes' : undefined))).toThrow(/deletionProtection must be true or false/);
    expect(() => optionsFromContext((key) => (key === 'restorableSnapshotOwners' ? [111122223333] : undefined))).toThrow(/restorableSnapshotOwners must be a comma-separated string or an array of strings/);
    expect(() => optionsFromContext((key) => (key === 'restorableSnapshotOwners' ? { owner: 'amazon' } : undefined))).toThrow(/restorableSnapshotOwners/);
    expect(() => optionsFromContext((key) => (key === 'attachableInstanceTag' ? { Team: 'storage' } : undefined))).toThrow(/attachableInstanceTag must be a string/);
  });
});

/** Runs the CDK app (infra/app.ts) as `cdk synth` would, with `context`, without bundling: only its reading of the context is under test. */
function runApp(context: Record<string, unknown>): { status: number | null; stderr: string; templates: string[] } {
  const outdir = mkdtempSync(join(tmpdir(), 'ebs-provisioner-app-'));
  try {
    const run = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('../../infra/app.ts', import.meta.url))], {
      encoding: 'utf8',
      env: { ...process.env, CDK_OUTDIR: outdir, CDK_CONTEXT_JSON: JSON.stringify({ ...context, 'aws:cdk:bundling-stacks': [] }) },
    });
    return { status: run.status, stderr: run.stderr, templates: readdirSync(outdir).filter((file) => file.endsWith('.template.json')) };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('context keys', () => {
  it('a plain key that is no option is refused, naming it and the options; CDK\'s own keys, feature flags and lookups pass', () => {
    const cdkKeys = ['@aws-cdk/core:checkSecretUsage', 'aws:cdk:enable-path-metadata', 'aws:cdk:bundling-stacks', 'acknowledged-issue-numbers', 'availability-zones:account=123456789012:region=eu-west-1'];
    expect(() => checkContextKeys([...cdkKeys, 'stackName', 'alarmEmail', 'attachableInstanceTag'])).not.toThrow();
    expect(() => checkContextKeys([...cdkKeys, 'alarmEmial'])).toThrow(/^unknown context option "alarmEmial": the options are stackName, ownerTagValue, alarmEmail, /);
  });

  it('the app refuses a misspelt option (-c alarmEmial=…) rather than deploy without it', () => {
    const misspelt = runApp({ alarmEmial: 'ops@example.com' });
    expect(misspelt.status).toBe(1);
    // The message alone, as a usage error: no source line, no stack trace.
    expect(misspelt.stderr).toMatch(/^error: unknown context option "alarmEmial": the options are stackName, /);
    expect(misspelt.stderr.trim().split('\n')).toHaveLength(1);
    expect(misspelt.templates).toEqual([]);
  }, 60_000);
});

describe('stackName', () => {
  it('the default when not given; a name CloudFormation takes as given; an empty or malformed one refused, naming the option', () => {
    expect(stackNameFromContext(() => undefined)).toBe(DEFAULT_STACK_NAME);
    expect(stackNameFromContext(() => 'Team-A')).toBe('Team-A');
    expect(stackNameFromContext(() => `A${'b'.repeat(127)}`)).toHaveLength(128);
    for (const bad of ['', 'team_a', '1team', `A${'b'.repeat(128)}`, 42]) {
      expect(() => stackNameFromContext(() => bad), JSON.stringify(bad)).toThrow(/^stackName must be/);
    }
  });

  it('the app refuses an empty -c stackName= (a shell variable expanded to nothing) instead of deploying over the default stack', () => {
    const empty = runApp({ stackName: '' });
    expect(empty.status).toBe(1);
    expect(empty.stderr).toBe('error: stackName must be 1-128 letters, digits and hyphens, starting with a letter, got ""\n');
    expect(empty.templates).toEqual([]);
  }, 60_000);
});

describe('every option away from its default', () => {
  let s: Synthesized;
  beforeAll(() => {
    s = synthesize(
      {
        ownerTagValue: 'team-a',
        alarmEmail: 'ops@example.com',
        apiAuthorization: 'none',
        executorMaxConcurrency: 10,
        ec2RefillPerSecond: 20,
        logRetentionDays: 7,
        tableRemovalPolicy: 'destroy',
        deletionProtection: false,
        kmsKeyArn: KEY,
        reconcilerScanSegments: 16,
        restorableSnapshotOwners: ['111122223333', 'amazon'],
        attachableInstanceTag: 'Team=storage',
      },
      { bundle: false },
    );
  }, 60_000);
  const fn = (name: string) => s.json.Resources[resourceId(s.json, 'AWS::Lambda::Function', `Functions${name}`)]!.Properties!;
  const executorStatements = () => roleStatements(s.json, (fn('Executor').Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!);

  it('owner tag value in every EC2 condition', () => {
    const conditions = JSON.stringify(executorStatements().map((statement) => statement.Condition ?? {}));
    expect(conditions).toContain(`"aws:RequestTag/${OWNERSHIP_TAGS.owner}":"team-a"`);
    expect(conditions).toContain(`"ec2:ResourceTag/${OWNERSHIP_TAGS.owner}":"team-a"`);
    expect(fn('Executor').Environment).toMatchObject({ Variables: { OWNER_TAG_VALUE: 'team-a' } });
  });

  it('snapshots of the listed owners only, instances with the tag only', () => {
    const bySid = (sid: string) => executorStatements().find((statement) => statement.Sid === sid);
    expect(bySid('CreateVolumesFromSnapshots')?.Condition).toEqual({ StringEquals: { 'ec2:Owner': ['111122223333', 'amazon'] } });
    expect(bySid('AttachToInstances')?.Condition).toEqual({ StringEquals: { 'ec2:ResourceTag/Team': 'storage' } });
  });

  it('an instance tag value holding ${ is matched as written, not read by IAM as a policy variable', () => {
    const stack = new Stack(new App(), 'Escaped', { env: TEST_ENV });
    const options = resolveOptions({ attachableInstanceTag: 'Team=a${aws:username}$b' }, 'Escaped');
    const attach = ec2MutationStatements(stack, options).find((statement) => statement.sid === 'AttachToInstances');
    expect(attach?.toStatementJson().Condition).toEqual({ StringEquals: { 'ec2:ResourceTag/Team': 'a${$}{aws:username}${$}b' } });
  });

  it('KMS permissions on the configured key only, what EBS needs, used and granted only through EC2 in this Region, grants only for AWS resources', () => {
    const kms = executorStatements().filter((statement) => actionsOf(statement).some((action) => action.startsWith('kms:')));
    expect(kms.map((statement) => statement.Resource)).toEqual([KEY, KEY]);
    // EC2's endpoint in the stack's Region, with the partition's URL suffix (amazonaws.com.cn in China).
    const throughEc2 = { 'kms:ViaService': { 'Fn::Join': ['', [`ec2.${TEST_ENV.region}.`, { Ref: 'AWS::URLSuffix' }]] } };
    const createGrant = kms.find((statement) => actionsOf(statement).includes('kms:CreateGrant'));
    expect(actionsOf(createGrant!)).toEqual(['kms:CreateGrant']);
    expect(createGrant?.Condition).toEqual({ StringEquals: throughEc2, Bool: { 'kms:GrantIsForAWSResource': 'true' } });
    const use = kms.find((statement) => statement !== createGrant)!;
    expect(actionsOf(use).sort()).toEqual(['kms:Decrypt', 'kms:DescribeKey', 'kms:GenerateDataKeyWithoutPlaintext', 'kms:ReEncryptFrom', 'kms:ReEncryptTo']);
    expect(use.Condition).toEqual({ StringEquals: throughEc2 });
    // A permission only: the executor passes the key a volume's spec names, and reads no key setting.
    expect(JSON.stringify(fn('Executor').Environment)).not.toContain(KEY);
    for (const name of ['Api', 'Watcher', 'Reconciler']) {
      const statements = roleStatements(s.json, (fn(name).Role as { 'Fn::GetAtt': string[] })['Fn::GetAtt'][0]!);
      expect(statements.flatMap(actionsOf).filter((action) => action.startsWith('kms:'))).toEqual([]);
    }
  });

  it('open API when asked for, still passing cdk-nag with acknowledgements true of an open API', () => {
    const methods = Object.values(s.template.findResources('AWS::ApiGateway::Method'));
    expect(methods.length).toBeGreaterThan(0);
    for (const method of methods) expect(method.Properties.AuthorizationType).toBe('NONE');
    const onAuthorization = acknowledgements(s.app).filter(({ id }) => ['AwsSolutions-APIG3', 'AwsSolutions-APIG4', 'AwsSolutions-COG4'].includes(id));
    expect(new Set(onAuthorization.map(({ id }) => id))).toEqual(new Set(['AwsSolutions-APIG3', 'AwsSolutions-APIG4', 'AwsSolutions-COG4']));
    for (const { id, reason } of onAuthorization) {
      expect(reason, id).toMatch(/^apiAuthorization=none: /);
      expect(reason, id).not.toMatch(/SigV4|IAM/);
    }
    expect(Object.values(s.template.findOutputs('ApiUrl'))[0]!.Description).toMatch(/no authorization/);
  });

  it('every acknowledgement answers a finding, with every option away from its default too', () => {
    expect(unneededAcknowledgements(s.app)).toEqual([]);
  });

  it('executor concurrency, EC2 refill rate and each environment\'s share of EC2\'s buckets, retention, table removal and an email subscription', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 10 } });
    expect(fn('Executor').ReservedConcurrentExecutions).toBe(10);
    // The backlog alarm scales with the executor: one batch for each of the ten invocations.
    expect(s.json.Resources[resourceId(s.json, 'AWS::CloudWatch::Alarm', 'MonitoringExecutorBacklog')]!.Properties!.Threshold).toBe(EXECUTOR.batchSize * 10);
    expect(fn('Executor').Environment).toMatchObject({ Variables: { EC2_REFILL_PER_SECOND: '20', EXECUTOR_MAX_CONCURRENCY: '10' } });
    // Each of the ten environments takes a tenth of EC2's buckets at the raised refill, action by action.
    const variables = (fn('Executor').Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables.EC2_RATE_BUDGET).toBeUndefined();
    const config = resolveEngineConfig(readFunctionEnvironment(Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : name]))).engineConfig);
    expect(config.concurrentEnvironments).toBe(10);
    expect(config.rateBudgets.AttachVolume).toEqual({ burst: 5, ratePerSecond: 2 });
    expect(config.rateBudgets.CreateVolume).toEqual({ burst: 10, ratePerSecond: 2 });
    expect(config.rateBudgets.CreateTags).toEqual({ burst: 10, ratePerSecond: 1 });
    // Those that read the line of calls waiting for tokens measure it at the same pace.
    for (const reader of ['Reconciler', 'Api']) expect(fn(reader).Environment).toMatchObject({ Variables: { EC2_REFILL_PER_SECOND: '20' } });
    for (const logGroup of Object.values(s.template.findResources('AWS::Logs::LogGroup'))) expect(logGroup.Properties.RetentionInDays).toBe(7);
    const table = s.json.Resources[resourceId(s.json, 'AWS::DynamoDB::Table', 'StorageTable')]!;
    expect(table.DeletionPolicy).toBe('Delete');
    expect(table.Properties!.DeletionProtectionEnabled).toBe(false);
    s.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
  });
});

describe('reconcilerScanSegments', () => {
  it('only when given, the reconciler divides the table into that many segments; the engine\'s default otherwise', () => {
    const segmentsOf = (json: Synthesized['json']) => {
      const variables = (json.Resources[resourceId(json, 'AWS::Lambda::Function', 'FunctionsReconciler')]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
      const env = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : name]));
      return { variable: variables.RECONCILER_SCAN_SEGMENTS, segments: resolveEngineConfig(readFunctionEnvironment(env).engineConfig).reconcilerScanSegments };
    };
    expect(segmentsOf(synthesize({ reconcilerScanSegments: 16 }, { bundle: false }).json)).toEqual({ variable: '16', segments: 16 });
    expect(segmentsOf(synthesize({}, { bundle: false }).json)).toEqual({ variable: undefined, segments: DEFAULT_ENGINE_CONFIG.reconcilerScanSegments });
  });
});

describe('ec2RateBudget', () => {
  it('only when given, the executor spends that many mutating calls per second per environment for every action', () => {
    const { json } = synthesize({ ec2RateBudget: 0.5 }, { bundle: false });
    const executor = json.Resources[resourceId(json, 'AWS::Lambda::Function', 'FunctionsExecutor')]!.Properties!;
    expect(executor.Environment).toMatchObject({ Variables: { EC2_RATE_BUDGET: '0.5', EXECUTOR_MAX_CONCURRENCY: String(EXECUTOR.maxConcurrency) } });
  });
});

describe('two deployments in one account and Region', () => {
  it('each has its own metrics namespace, after its stack name, in its functions\' environment and its alarms', () => {
    const namespacesOf = (stackName: string) => {
      const { json } = synthesize({}, { bundle: false, stackName });
      const resources = Object.values(json.Resources);
      const functions = resources.filter((r) => r.Type === 'AWS::Lambda::Function' && (r.Properties!.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables?.TABLE_NAME);
      const alarms = resources.filter((r) => r.Type === 'AWS::CloudWatch::Alarm' && !String(r.Properties!.Namespace).startsWith('AWS/'));
      expect(functions).toHaveLength(4);
      expect(alarms.length).toBeGreaterThan(0);
      return new Set([
        // The api publishes no metrics and is given no namespace.
        ...functions.flatMap((r) => (r.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_METRICS_NAMESPACE ?? []),
        ...alarms.map((r) => r.Properties!.Namespace),
      ]);
    };
    expect(namespacesOf('TeamA')).toEqual(new Set(['EbsProvisioner/TeamA']));
    expect(namespacesOf('TeamB')).toEqual(new Set(['EbsProvisioner/TeamB']));
  });
});

describe('synthesis for the tests', () => {
  it('leaves nothing behind: removeSynthesized deletes every cloud assembly synthesize wrote (one with bundles is some 16 MB)', () => {
    const first = synthesize({}, { bundle: false }).outdir;
    const second = synthesize({}, { bundle: false, stackName: 'Other' }).outdir;
    expect([existsSync(first), existsSync(second)]).toEqual([true, true]);
    removeSynthesized();
    expect([existsSync(first), existsSync(second)]).toEqual([false, false]);
  });
});

describe('cdk-nag is active', () => {
  it('fails synthesis on an unacknowledged finding', () => {
    const app = new App();
    const stack = new Stack(app, 'Plain');
    new sqs.Queue(stack, 'Queue');
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS3/);
  });
});
