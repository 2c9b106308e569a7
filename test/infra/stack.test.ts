/**
 * Template tests of the default deployment: one synthesis with real bundling and cdk-nag, then
 * the settings that matter, checked against lib/settings.ts.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API, EXECUTOR, METRICS, OWNERSHIP_TAGS, QUEUE, RATE_BUDGET_TABLE, RECONCILER, TABLE, WATCHER } from '../../lib/settings.js';
import { ESM_REQUIRE_BANNER, FUNCTION_NAMES, type FunctionName } from '../../infra/constructs/functions.js';
import { executorBacklogThreshold, ITERATOR_AGE_ALARM_MS } from '../../infra/constructs/monitoring.js';
import { DEFAULT_ENGINE_CONFIG, resolveEngineConfig } from '../../lib/engine/config.js';
import { readFunctionEnvironment } from '../../lib/functions/environment.js';
import { acknowledgements, actionsOf, CDK_JSON_CONTEXT, removeSynthesized, resourceId, resourcesOf, roleStatements, synthesize, TEST_ENV, unneededAcknowledgements, type Statement, type Synthesized } from './synth.js';

let s: Synthesized;
const OWNER = 'EbsProvisionerTest';
/** This deployment's own metrics namespace, after its stack name. */
const NAMESPACE = 'EbsProvisioner/EbsProvisionerTest';
const SIZING = { api: API, watcher: WATCHER, executor: EXECUTOR, reconciler: RECONCILER };
const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

beforeAll(() => {
  s = synthesize();
}, 120_000);
afterAll(removeSynthesized);

const getAtt = (id: string, attribute = 'Arn') => ({ 'Fn::GetAtt': [id, attribute] });
const functionId = (name: FunctionName) => resourceId(s.json, 'AWS::Lambda::Function', `Functions${capitalized(name)}`);
const roleIdOf = (name: FunctionName) => {
  const role = s.json.Resources[functionId(name)]!.Properties!.Role as { 'Fn::GetAtt': [string, string] };
  return role['Fn::GetAtt'][0];
};
const statementsOf = (name: FunctionName) => roleStatements(s.json, roleIdOf(name));
const tableId = () => resourceId(s.json, 'AWS::DynamoDB::Table', 'StorageTable');
const rateTableId = () => resourceId(s.json, 'AWS::DynamoDB::Table', 'StorageRateBudgetTable');
const queueId = (prefix: string) => resourceId(s.json, 'AWS::SQS::Queue', `Storage${prefix}`);
/** Statements of `name` allowing `action`. */
const allowing = (name: FunctionName, action: string) => statementsOf(name).filter((statement) => statement.Effect === 'Allow' && actionsOf(statement).includes(action));

describe('table', () => {
  it('is on-demand, encrypted, with point-in-time recovery, a NEW_AND_OLD_IMAGES stream and the instance index', () => {
    s.template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
        { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
      ],
      StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      SSESpecification: { SSEEnabled: true },
      DeletionProtectionEnabled: true,
      GlobalSecondaryIndexes: [
        {
          IndexName: TABLE.instanceIndex.name,
          KeySchema: [
            { AttributeName: TABLE.instanceIndex.partitionKey, KeyType: 'HASH' },
            { AttributeName: TABLE.instanceIndex.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        },
      ],
    });
    expect(TABLE.streamView).toBe('NEW_AND_OLD_IMAGES');
  });

  it('is retained when the stack is deleted', () => {
    expect(s.json.Resources[tableId()]!.DeletionPolicy).toBe('Retain');
  });
});

describe('rate budget table', () => {
  it('is on-demand, encrypted, keyed by EC2 bucket, without a stream, and goes with the stack', () => {
    const properties = s.json.Resources[rateTableId()]!.Properties!;
    expect(properties).toMatchObject({
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [{ AttributeName: RATE_BUDGET_TABLE.partitionKey, KeyType: 'HASH' }],
      SSESpecification: { SSEEnabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
    expect(properties.StreamSpecification).toBeUndefined();
    expect(s.json.Resources[rateTableId()]!.DeletionPolicy).toBe('Delete');
  });

  it('the executor may read and put one level; the reconciler and the API only read it; the watcher does not know it', () => {
    const rateTable = getAtt(rateTableId());
    for (const name of FUNCTION_NAMES) {
      const variables = (s.json.Resources[functionId(name)]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
      const onRateTable = statementsOf(name).filter((statement) => resourcesOf(statement).some((r) => JSON.stringify(r) === JSON.stringify(rateTable)));
      if (name === 'executor') {
        expect(variables.RATE_BUDGET_TABLE_NAME).toEqual({ Ref: rateTableId() });
        expect(onRateTable.flatMap(actionsOf).sort()).toEqual(['dynamodb:GetItem', 'dynamodb:PutItem']);
      } else if (name === 'reconciler' || name === 'api') {
        expect(variables.RATE_BUDGET_TABLE_NAME).toEqual({ Ref: rateTableId() });
        expect(variables.EC2_REFILL_PER_SECOND).toBe('5');
        expect(onRateTable.flatMap(actionsOf)).toEqual(['dynamodb:GetItem']);
      } else {
        expect(variables.RATE_BUDGET_TABLE_NAME).toBeUndefined();
        expect(onRateTable).toEqual([]);
      }
    }
  });
});

describe('queues', () => {
  it('operation queue: SSE, visibility timeout from QUEUE (six executor timeouts), retention, dead-letter queue after maxReceiveCount', () => {
    expect(QUEUE.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(6 * EXECUTOR.timeoutSeconds);
    s.template.hasResourceProperties('AWS::SQS::Queue', {
      SqsManagedSseEnabled: true,
      VisibilityTimeout: QUEUE.visibilityTimeoutSeconds,
      MessageRetentionPeriod: QUEUE.retentionDays * 86_400,
      RedrivePolicy: { deadLetterTargetArn: getAtt(queueId('DeadLetterQueue')), maxReceiveCount: QUEUE.maxReceiveCount },
    });
  });

  it("a record's claim outlasts an executor invocation and lapses within the visibility timeout, so a crashed invocation's redelivery takes the work over", () => {
    expect(DEFAULT_ENGINE_CONFIG.claimLeaseMs).toBeGreaterThan(EXECUTOR.timeoutSeconds * 1000);
    expect(DEFAULT_ENGINE_CONFIG.claimLeaseMs).toBeLessThan(QUEUE.visibilityTimeoutSeconds * 1000);
  });

  it('the dead-letter and stream failure queues keep messages longer than the operation queue (a dead letter keeps its first enqueue time)', () => {
    expect(QUEUE.deadLetterRetentionDays).toBeGreaterThan(QUEUE.retentionDays);
    for (const id of [queueId('DeadLetterQueue'), queueId('StreamFailureQueue')]) {
      expect(s.json.Resources[id]!.Properties!.MessageRetentionPeriod).toBe(QUEUE.deadLetterRetentionDays * 86_400);
    }
  });

  it('every queue is encrypted and refuses requests without TLS', () => {
    for (const id of [queueId('OperationQueue'), queueId('DeadLetterQueue'), queueId('StreamFailureQueue')]) {
      expect(s.json.Resources[id]!.Properties).toMatchObject({ SqsManagedSseEnabled: true });
      s.template.hasResourceProperties('AWS::SQS::QueuePolicy', {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    }
  });
});

describe('functions', () => {
  it.each(FUNCTION_NAMES)('%s: Node.js 22 on arm64, sized from lib/settings.ts, Powertools environment', (name) => {
    const properties = s.json.Resources[functionId(name)]!.Properties!;
    expect(properties).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: SIZING[name].memoryMiB,
      Timeout: SIZING[name].timeoutSeconds,
      LoggingConfig: { LogFormat: 'JSON', LogGroup: { Ref: resourceId(s.json, 'AWS::Logs::LogGroup', `Functions${capitalized(name)}Logs`) } },
    });
    const variables = (properties.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).toMatchObject({
      TABLE_NAME: { Ref: tableId() },
      POWERTOOLS_SERVICE_NAME: `ebs-provisioner-${name}`,
      LOG_LEVEL: 'INFO',
    });
    // The api publishes no metrics (functions/api.ts): it is given no namespace.
    expect(variables.POWERTOOLS_METRICS_NAMESPACE).toEqual(name === 'api' ? undefined : NAMESPACE);
    // The api reads neither (functions/api.ts): it never sends to the queue nor names the owner.
    expect(variables.QUEUE_URL).toEqual(name === 'api' ? undefined : { Ref: queueId('OperationQueue') });
    expect(variables.OWNER_TAG_VALUE).toEqual(name === 'api' ? undefined : OWNER);
    expect(variables.KMS_KEY_ARN).toBeUndefined();
  });

  it('each function has its own role and a log group with retention', () => {
    const roles = new Set(FUNCTION_NAMES.map(roleIdOf));
    expect(roles.size).toBe(FUNCTION_NAMES.length);
    for (const name of FUNCTION_NAMES) {
      const logGroup = resourceId(s.json, 'AWS::Logs::LogGroup', `Functions${capitalized(name)}Logs`);
      expect(s.json.Resources[logGroup]!.Properties!.RetentionInDays).toBe(30);
      // Writes only to its own log group; no managed policy with logs on every group.
      expect(allowing(name, 'logs:PutLogEvents').flatMap(resourcesOf)).toEqual([getAtt(logGroup)]);
      expect(s.json.Resources[roleIdOf(name)]!.Properties!.ManagedPolicyArns).toBeUndefined();
    }
  });

  it('reserves concurrency where it protects EC2: executor at its maximum concurrency, reconciler at one', () => {
    expect(s.json.Resources[functionId('executor')]!.Properties!.ReservedConcurrentExecutions).toBe(EXECUTOR.maxConcurrency);
    expect(s.json.Resources[functionId('reconciler')]!.Properties!.ReservedConcurrentExecutions).toBe(1);
  });

  it('only the executor, which chains its own delayed messages on its queue, lets Lambda run it in a recursive loop', () => {
    for (const name of FUNCTION_NAMES) {
      // Absent is Lambda's default, Terminate.
      expect(s.json.Resources[functionId(name)]!.Properties!.RecursiveLoop, name).toBe(name === 'executor' ? 'Allow' : undefined);
    }
  });

  it('the deployed executor runs with the engine\'s settings: its concurrency, and each action\'s own rate budget', () => {
    const variables = (s.json.Resources[functionId('executor')]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables;
    expect(variables).toMatchObject({ EC2_REFILL_PER_SECOND: '5', EXECUTOR_MAX_CONCURRENCY: String(EXECUTOR.maxConcurrency) });
    expect(variables.EC2_RATE_BUDGET).toBeUndefined();
    // What the function reads from this environment (references to resources stand in as names).
    const env = Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, typeof value === 'string' ? value : name]));
    const config = resolveEngineConfig(readFunctionEnvironment(env).engineConfig);
    expect(config.concurrentEnvironments).toBe(DEFAULT_ENGINE_CONFIG.concurrentEnvironments);
    expect(config.rateBudgets).toEqual(DEFAULT_ENGINE_CONFIG.rateBudgets);
    expect(config.accountRateBudgets).toEqual(DEFAULT_ENGINE_CONFIG.accountRateBudgets);
  });

  it.each(FUNCTION_NAMES)('%s: bundled as minified ESM with the createRequire banner and a source map', (name) => {
    const code = s.json.Resources[functionId(name)]!.Properties!.Code as { S3Key: string };
    const assetDir = join(s.outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`);
    const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
    expect(bundle.startsWith(ESM_REQUIRE_BANNER)).toBe(true);
    expect(bundle).toMatch(/export\s*\{[^}]*as handler/);
    // Minified: long lines (an unminified bundle of this size averages well under 100 characters a line).
    expect(bundle.length / bundle.split('\n').length).toBeGreaterThan(2000);
    expect(bundle).toContain('//# sourceMappingURL=index.mjs.map');
    expect(existsSync(join(assetDir, 'index.mjs.map'))).toBe(true);
  });
});

describe('event source mappings', () => {
  it('stream → watcher with every property from WATCHER, failures to the stream failure queue, no filter', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('watcher') },
      EventSourceArn: getAtt(tableId(), 'StreamArn'),
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: WATCHER.batchSize,
      MaximumBatchingWindowInSeconds: WATCHER.maxBatchingWindowSeconds,
      BisectBatchOnFunctionError: WATCHER.bisectBatchOnError,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      MaximumRetryAttempts: WATCHER.retryAttempts,
      MaximumRecordAgeInSeconds: WATCHER.maxRecordAgeSeconds,
      ParallelizationFactor: WATCHER.parallelizationFactor,
      DestinationConfig: { OnFailure: { Destination: getAtt(queueId('StreamFailureQueue')) } },
      FilterCriteria: Match.absent(),
    });
  });

  it('queue → executor with every property from EXECUTOR', () => {
    s.template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: functionId('executor') },
      EventSourceArn: getAtt(queueId('OperationQueue')),
      BatchSize: EXECUTOR.batchSize,
      MaximumBatchingWindowInSeconds: EXECUTOR.maxBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: EXECUTOR.maxConcurrency },
    });
    s.template.resourceCountIs('AWS::Lambda::EventSourceMapping', 2);
  });

  it('the queue mapping keeps the logical id SqsEventSource gave it, so an update changes it in place rather than replacing it', () => {
    const ids = Object.keys(s.template.findResources('AWS::Lambda::EventSourceMapping', { Properties: { FunctionName: { Ref: functionId('executor') } } }));
    expect(ids).toEqual([expect.stringMatching(/^FunctionsExecutorSqsEventSourceEbsProvisionerTestStorageOperationQueue[0-9A-F]{16}$/)]);
  });

  it('reconciler runs on a schedule of RECONCILER.intervalMinutes', () => {
    s.template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${RECONCILER.intervalMinutes} minutes)`,
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: getAtt(functionId('reconciler')), RetryPolicy: { MaximumRetryAttempts: 0 } })],
    });
  });

  it('a reconciler pass ends before the next is due (one reserved execution: no throttle) and is never retried', () => {
    const reconciler = s.json.Resources[functionId('reconciler')]!.Properties!;
    expect(reconciler.ReservedConcurrentExecutions).toBe(1);
    expect(reconciler.Timeout).toBe(RECONCILER.timeoutSeconds);
    expect(RECONCILER.timeoutSeconds).toBeLessThan(RECONCILER.intervalMinutes * 60);
    // Lambda's own asynchronous retries, apart from EventBridge's: none, and none after an interval.
    const configs = Object.values(s.template.findResources('AWS::Lambda::EventInvokeConfig'));
    expect(configs).toHaveLength(1);
    expect(configs[0]!.Properties).toEqual({
      FunctionName: { Ref: functionId('reconciler') },
      Qualifier: '$LATEST',
      MaximumRetryAttempts: 0,
      MaximumEventAgeInSeconds: RECONCILER.intervalMinutes * 60,
    });
  });
});

describe('IAM', () => {
  // With cdk.json's @aws-cdk/core:enablePartitionLiterals the partition of a known Region is written out.
  const volumeArn = `arn:aws:ec2:${TEST_ENV.region}:${TEST_ENV.account}:volume/*`;
  const only = (statements: Statement[]) => {
    expect(statements).toHaveLength(1);
    return statements[0]!;
  };

  it('CreateVolume only with the ownership tag in the request (and snapshots only as a source, by default only this account\'s)', () => {
    const statements = allowing('executor', 'ec2:CreateVolume');
    const onVolumes = only(statements.filter((statement) => JSON.stringify(statement.Resource).includes('volume/*')));
    expect(onVolumes.Condition).toEqual({ StringEquals: { [`aws:RequestTag/${OWNERSHIP_TAGS.owner}`]: OWNER } });
    expect(resourcesOf(onVolumes)).toEqual([volumeArn]);
    const onSnapshots = only(statements.filter((statement) => statement !== onVolumes));
    expect(resourcesOf(onSnapshots)).toEqual([`arn:aws:ec2:${TEST_ENV.region}::snapshot/*`]);
    // API callers name any snapshot: only those the stack's own account owns.
    expect(onSnapshots.Condition).toEqual({ StringEquals: { 'ec2:Owner': [TEST_ENV.account] } });
  });

  it('CreateTags as part of CreateVolume, or on owned volumes without the ownership keys; DeleteTags only the latter', () => {
    const statements = allowing('executor', 'ec2:CreateTags');
    const creating = only(statements.filter((statement) => statement.Sid === 'TagOnlyWhileCreatingVolumes'));
    expect(creating.Condition).toEqual({ StringEquals: { 'ec2:CreateAction': 'CreateVolume' } });
    expect(actionsOf(creating)).toEqual(['ec2:CreateTags']);
    const retag = only(statements.filter((statement) => statement !== creating));
    expect(only(allowing('executor', 'ec2:DeleteTags'))).toBe(retag);
    expect(actionsOf(retag)).toEqual(['ec2:CreateTags', 'ec2:DeleteTags']);
    expect(resourcesOf(retag)).toEqual([volumeArn]);
    expect(retag.Condition).toEqual({
      StringEquals: { [`ec2:ResourceTag/${OWNERSHIP_TAGS.owner}`]: OWNER },
      'ForAllValues:StringNotEquals': { 'aws:TagKeys': [OWNERSHIP_TAGS.owner, OWNERSHIP_TAGS.record] },
      // A DeleteTags naming no key would remove every tag, ownership included.
      Null: { 'aws:TagKeys': 'false' },
    });
  });

  it.each(['ec2:AttachVolume', 'ec2:DetachVolume', 'ec2:ModifyVolume', 'ec2:DeleteVolume'])('%s only on volumes with the ownership tag', (action) => {
    const statements = allowing('executor', action);
    const onVolumes = only(statements.filter((statement) => JSON.stringify(statement.Resource).includes('volume/*')));
    expect(onVolumes.Condition).toEqual({ StringEquals: { [`ec2:ResourceTag/${OWNERSHIP_TAGS.owner}`]: OWNER } });
    const others = statements.filter((statement) => statement !== onVolumes);
    if (action === 'ec2:AttachVolume' || action === 'ec2:DetachVolume') {
      const onInstances = only(others);
      expect(resourcesOf(onInstances)).toEqual([`arn:aws:ec2:${TEST_ENV.region}:${TEST_ENV.account}:instance/*`]);
      // Without attachableInstanceTag: any instance in the account and Region.
      expect(onInstances.Condition).toBeUndefined();
    } else {
      expect(others).toEqual([]);
    }
  });

  it('no EC2 action is allowed on * except Describe*, and no KMS without a key', () => {
    for (const name of FUNCTION_NAMES) {
      for (const statement of statementsOf(name)) {
        const ec2 = actionsOf(statement).filter((action) => action.startsWith('ec2:'));
        if (resourcesOf(statement).includes('*')) expect(ec2.every((action) => action.startsWith('ec2:Describe'))).toBe(true);
        expect(actionsOf(statement).some((action) => action.startsWith('kms:'))).toBe(false);
      }
    }
  });

  it('EC2 per function: executor mutates and describes (all it calls), reconciler only describes volumes (all it calls), api and watcher none', () => {
    const ec2Actions = (name: FunctionName) => [...new Set(statementsOf(name).flatMap(actionsOf).filter((action) => action.startsWith('ec2:')))].sort();
    expect(ec2Actions('api')).toEqual([]);
    expect(ec2Actions('watcher')).toEqual([]);
    expect(ec2Actions('reconciler')).toEqual(['ec2:DescribeVolumes']);
    // Every call of the EC2 volume provider: a missing one is AccessDenied, an attempt spent per try.
    expect(ec2Actions('executor')).toEqual([
      'ec2:AttachVolume',
      'ec2:CreateTags',
      'ec2:CreateVolume',
      'ec2:DeleteTags',
      'ec2:DeleteVolume',
      'ec2:DescribeInstances',
      'ec2:DescribeVolumes',
      'ec2:DescribeVolumesModifications',
      'ec2:DetachVolume',
      'ec2:ModifyVolume',
    ]);
    // The same list read from the provider's sources: each EC2 command it sends is authorized as ec2:<its name>.
    const provider = readFileSync(new URL('../../lib/aws/ec2-provider.ts', import.meta.url), 'utf8');
    const sent = [...new Set([...provider.matchAll(/new (\w+)Command\(/g)].map((match) => `ec2:${match[1]!}`))].sort();
    expect(ec2Actions('executor')).toEqual(sent);
  });

  it('record table grants per function: exactly the actions of the store methods its code calls', () => {
    const table = getAtt(tableId());
    const instanceIndex = { 'Fn::Join': ['', [table, `/index/${TABLE.instanceIndex.name}`]] };
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const actionsOn = (name: FunctionName, resource: unknown) =>
      [...new Set(statementsOf(name).filter((statement) => statement.Effect === 'Allow' && resourcesOf(statement).some((r) => same(r, resource))).flatMap(actionsOf))].sort();
    const expected: Record<FunctionName, { table: string[]; index: string[] }> = {
      // Reads, lists, creates and changes records; never deletes one.
      api: { table: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:Query', 'dynamodb:Scan', 'dynamodb:UpdateItem'], index: ['dynamodb:Query'] },
      watcher: { table: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], index: [] },
      executor: { table: ['dynamodb:BatchGetItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:UpdateItem'], index: ['dynamodb:Query'] },
      // Only reads: scans the table and reads volume records in bulk.
      reconciler: { table: ['dynamodb:BatchGetItem', 'dynamodb:Scan'], index: [] },
    };
    for (const name of FUNCTION_NAMES) {
      expect(actionsOn(name, table), name).toEqual(expected[name].table);
      expect(actionsOn(name, instanceIndex), name).toEqual(expected[name].index);
      // No function may write in bulk, and none has a grant on every index of the table.
      expect(allowing(name, 'dynamodb:BatchWriteItem'), name).toEqual([]);
      expect(statementsOf(name).flatMap(resourcesOf).filter((r) => JSON.stringify(r).includes('/index/*')), name).toEqual([]);
      // DynamoDB actions only on the record table, its instance index, the rate budget table, and the watcher's stream.
      const known = [table, instanceIndex, getAtt(rateTableId()), getAtt(tableId(), 'StreamArn'), '*'];
      const onDynamo = statementsOf(name).filter((statement) => actionsOf(statement).some((action) => action.startsWith('dynamodb:')));
      for (const resource of onDynamo.flatMap(resourcesOf)) expect(known.some((k) => same(k, resource)), JSON.stringify(resource)).toBe(true);
    }
    expect(allowing('watcher', 'dynamodb:ListStreams').flatMap(resourcesOf)).toEqual(['*']);
    for (const name of ['api', 'executor', 'reconciler'] as const) expect(allowing(name, 'dynamodb:ListStreams')).toEqual([]);
  });

  it('stream and queue grants per function, least needed', () => {
    const queue = getAtt(queueId('OperationQueue'));
    const grants = (name: FunctionName, action: string) => allowing(name, action).flatMap(resourcesOf);
    expect(grants('api', 'sqs:SendMessage')).toEqual([]);
    expect(grants('watcher', 'sqs:SendMessage')).toContainEqual(queue);
    expect(grants('watcher', 'dynamodb:GetRecords')).toContainEqual(getAtt(tableId(), 'StreamArn'));
    expect(grants('executor', 'sqs:SendMessage')).toEqual([queue]);
    expect(grants('executor', 'sqs:ReceiveMessage')).toEqual([queue]);
    expect(grants('executor', 'sqs:DeleteMessage')).toEqual([queue]);
    expect(grants('reconciler', 'sqs:SendMessage')).toEqual([queue]);
    for (const name of ['api', 'watcher', 'reconciler'] as const) expect(grants(name, 'sqs:ReceiveMessage')).toEqual([]);
    for (const name of ['api', 'executor', 'reconciler'] as const) expect(grants(name, 'dynamodb:GetRecords')).not.toContainEqual(getAtt(tableId(), 'StreamArn'));
    // Nobody reads the dead-letter queue automatically: its messages wait for a person.
    const dlq = getAtt(queueId('DeadLetterQueue'));
    for (const name of FUNCTION_NAMES) expect(statementsOf(name).flatMap(resourcesOf)).not.toContainEqual(dlq);
  });

  it('a function that only sends to a queue may only send to it (sqs:SendMessage, which SendMessageBatch is authorized as)', () => {
    const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const sqsActionsOn = (name: FunctionName, queue: unknown) =>
      [
        ...new Set(
          statementsOf(name)
            .filter((statement) => statement.Effect === 'Allow' && resourcesOf(statement).some((resource) => same(resource, queue)))
            .flatMap(actionsOf)
            .filter((action) => action.startsWith('sqs:')),
        ),
      ].sort();
    const queue = getAtt(queueId('OperationQueue'));
    // The watcher sends operations, and Lambda sends the descriptions of the stream batches it gives up on in the watcher's name.
    expect(sqsActionsOn('watcher', queue)).toEqual(['sqs:SendMessage']);
    expect(sqsActionsOn('watcher', getAtt(queueId('StreamFailureQueue')))).toEqual(['sqs:SendMessage']);
    expect(sqsActionsOn('reconciler', queue)).toEqual(['sqs:SendMessage']);
    // The executor sends its follow-ups; the rest is what its event source mapping needs to receive and delete its messages,
    // as Lambda's and SQS's guides list it: no ChangeMessageVisibility or GetQueueUrl, which nothing calls.
    expect(sqsActionsOn('executor', queue)).toEqual(['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage', 'sqs:SendMessage']);
    expect(sqsActionsOn('api', queue)).toEqual([]);
  });
});

describe('restorableSnapshotOwners and attachableInstanceTag', () => {
  const executorStatement = (json: Synthesized['json'], sid: string) => {
    const role = json.Resources[resourceId(json, 'AWS::Lambda::Function', 'FunctionsExecutor')]!.Properties!.Role as { 'Fn::GetAtt': [string, string] };
    const statements = roleStatements(json, role['Fn::GetAtt'][0]).filter((statement) => statement.Sid === sid);
    expect(statements).toHaveLength(1);
    return statements[0]!;
  };
  const snapshotCondition = (json: Synthesized['json']) => executorStatement(json, 'CreateVolumesFromSnapshots').Condition;
  const instanceCondition = (json: Synthesized['json']) => executorStatement(json, 'AttachToInstances').Condition;
  const reason = (app: Synthesized['app'], sid: string) => acknowledgements(app).find(({ reason }) => reason.startsWith(`${sid}: `))?.reason;

  it('by default only snapshots of the stack\'s own account, its id resolved at deployment when synthesis does not know it', () => {
    const { json } = synthesize({ env: {} }, { bundle: false });
    expect(snapshotCondition(json)).toEqual({ StringEquals: { 'ec2:Owner': [{ Ref: 'AWS::AccountId' }] } });
  });

  it('only snapshots of the owners given', () => {
    const { app, json } = synthesize({ restorableSnapshotOwners: ['111122223333', 'amazon'] }, { bundle: false });
    expect(snapshotCondition(json)).toEqual({ StringEquals: { 'ec2:Owner': ['111122223333', 'amazon'] } });
    expect(reason(app, 'CreateVolumesFromSnapshots')).toMatch(/only those owned by 111122223333, amazon \(ec2:Owner\)/);
  });

  it('\'*\': any snapshot the account can use, no condition', () => {
    const { app, json } = synthesize({ restorableSnapshotOwners: ['*'] }, { bundle: false });
    expect(snapshotCondition(json)).toBeUndefined();
    expect(reason(app, 'CreateVolumesFromSnapshots')).toMatch(/any the account can use \(restorableSnapshotOwners=\*\)/);
  });

  it('with a tag, volumes are attached to and detached from only instances carrying it; without, any instance', () => {
    const tagged = synthesize({ attachableInstanceTag: 'ebs-provisioner:attachable=yes' }, { bundle: false });
    expect(instanceCondition(tagged.json)).toEqual({ StringEquals: { 'ec2:ResourceTag/ebs-provisioner:attachable': 'yes' } });
    expect(actionsOf(executorStatement(tagged.json, 'AttachToInstances'))).toEqual(['ec2:AttachVolume', 'ec2:DetachVolume']);
    expect(reason(tagged.app, 'AttachToInstances')).toMatch(/only instances tagged ebs-provisioner:attachable=yes \(ec2:ResourceTag\)/);
    expect(instanceCondition(s.json)).toBeUndefined();
    expect(reason(s.app, 'AttachToInstances')).toMatch(/any instance in this account and Region/);
    expect(reason(s.app, 'CreateVolumesFromSnapshots')).toMatch(/only those owned by this account \(ec2:Owner\)/);
  });
});

describe('API', () => {
  const openApi = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, Record<string, unknown>> };
  const resourcePath = (id: string): string => {
    const properties = s.json.Resources[id]!.Properties!;
    const parent = properties.ParentId as { Ref?: string; 'Fn::GetAtt'?: string[] };
    return parent.Ref ? `${resourcePath(parent.Ref)}/${properties.PathPart as string}` : `/${properties.PathPart as string}`;
  };
  const methods = () =>
    Object.entries(s.json.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::ApiGateway::Method')
      .map(([, resource]) => {
        const properties = resource.Properties!;
        const parent = properties.ResourceId as { Ref?: string };
        return { path: parent.Ref ? resourcePath(parent.Ref) : '/', properties };
      });

  it('has a method for every path and operation of docs/openapi.json, and no other', () => {
    const expected = Object.entries(openApi.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    const actual = methods().map(({ path, properties }) => `${properties.HttpMethod as string} ${path}`);
    expect(actual.sort()).toEqual(expected.sort());
  });

  it('every method requires IAM (SigV4) authorization, validates requests and proxies to the api function', () => {
    const validator = resourceId(s.json, 'AWS::ApiGateway::RequestValidator', 'ApiRestApiValidator');
    expect(s.json.Resources[validator]!.Properties).toMatchObject({ ValidateRequestBody: true, ValidateRequestParameters: true });
    for (const { path, properties } of methods()) {
      expect(properties).toMatchObject({
        AuthorizationType: 'AWS_IAM',
        RequestValidatorId: { Ref: validator },
        Integration: { Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' },
      });
      for (const [, name] of path.matchAll(/\{([^}]+)\}/g)) {
        expect((properties.RequestParameters as Record<string, boolean>)[`method.request.path.${name}`]).toBe(true);
      }
    }
  });

  it('leaves every request body to the api function, which answers one that is not a JSON object as a problem (API Gateway would answer {"message": "Invalid request body"})', () => {
    for (const { path, properties } of methods()) expect(properties.RequestModels, `${properties.HttpMethod as string} ${path}`).toBeUndefined();
    expect(Object.values(s.json.Resources).filter((resource) => resource.Type === 'AWS::ApiGateway::Model')).toEqual([]);
  });

  it('answers what API Gateway refuses itself (throttling, a bad signature, a route it does not know) as problems with the type\'s documented status, never to be cached', () => {
    const responses = Object.values(s.json.Resources)
      .filter((resource) => resource.Type === 'AWS::ApiGateway::GatewayResponse')
      .map((resource) => resource.Properties!);
    const byType = new Map(responses.map((properties) => [properties.ResponseType as string, properties]));
    const documentedStatus: Record<string, number> = {
      MISSING_AUTHENTICATION_TOKEN: 403, ACCESS_DENIED: 403, INVALID_SIGNATURE: 403, EXPIRED_TOKEN: 403, INVALID_API_KEY: 403, WAF_FILTERED: 403,
      THROTTLED: 429, QUOTA_EXCEEDED: 429, BAD_REQUEST_PARAMETERS: 400, BAD_REQUEST_BODY: 400, RESOURCE_NOT_FOUND: 404,
      REQUEST_TOO_LARGE: 413, UNSUPPORTED_MEDIA_TYPE: 415, INTEGRATION_FAILURE: 504, INTEGRATION_TIMEOUT: 504, API_CONFIGURATION_ERROR: 500,
    };
    expect([...byType.keys()].sort()).toEqual(Object.keys(documentedStatus).sort());
    // API Gateway's messages carry quotes and line breaks (a signature mismatch shows the canonical request).
    const message = 'The request signature we calculated does not match.\n\'POST\n/v1/volumes\' "x"';
    for (const [type, properties] of byType) {
      const status = documentedStatus[type]!;
      expect(properties.StatusCode, type).toBe(String(status));
      expect(properties.ResponseParameters, type).toEqual({
        'gatewayresponse.header.Content-Type': "'application/problem+json'",
        'gatewayresponse.header.Cache-Control': "'no-store'",
      });
      const template = (properties.ResponseTemplates as Record<string, string>)['application/json']!;
      const body = JSON.parse(template.replace('$context.error.messageString', JSON.stringify(message))) as Record<string, unknown>;
      expect(body, type).toEqual({ type: expect.stringMatching(/^urn:ebs-provisioner:problem:[a-z-]+$/), title: expect.any(String), status, detail: message, errors: [] });
    }
    const throttled = (byType.get('THROTTLED')!.ResponseTemplates as Record<string, string>)['application/json']!;
    expect(JSON.parse(throttled.replace('$context.error.messageString', '"Too Many Requests"'))).toMatchObject({
      type: 'urn:ebs-provisioner:problem:throttled',
      title: 'Too many requests',
    });
  });

  it('cdk-nag acknowledgements on authorization and WAF name IAM (SigV4) authorization; the URL output asks for signed requests', () => {
    const reasons = (id: string) => acknowledgements(s.app).filter((entry) => entry.id === `AwsSolutions-${id}`).map((entry) => entry.reason);
    expect(reasons('APIG3')).toEqual([expect.stringMatching(/SigV4-authorized/)]);
    expect(new Set(reasons('COG4'))).toEqual(new Set([expect.stringMatching(/authorized by IAM \(SigV4\)/)]));
    expect(reasons('APIG4')).toEqual([]);
    expect(Object.values(s.template.findOutputs('ApiUrl'))[0]!.Description).toMatch(/SigV4-signed/);
  });

  it('outputs the dead-letter queue by URL and by the ARN its redrive names', () => {
    const queue = queueId('DeadLetterQueue');
    expect(Object.values(s.template.findOutputs('DeadLetterQueueArn'))[0]!.Value).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
    expect(Object.values(s.template.findOutputs('DeadLetterQueueUrl'))[0]!.Value).toEqual({ Ref: queue });
  });

  it('stage throttling from API and JSON access logs', () => {
    s.template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ HttpMethod: '*', ResourcePath: '/*', ThrottlingRateLimit: API.throttleRatePerSecond, ThrottlingBurstLimit: API.throttleBurst })],
      AccessLogSetting: { DestinationArn: getAtt(resourceId(s.json, 'AWS::Logs::LogGroup', 'ApiAccessLogs')), Format: Match.stringLikeRegexp('"requestId"') },
    });
    // Access logging needs API Gateway's account-level CloudWatch role.
    s.template.resourceCountIs('AWS::ApiGateway::Account', 1);
    expect(s.json.Resources[resourceId(s.json, 'AWS::Logs::LogGroup', 'ApiAccessLogs')]!.Properties!.RetentionInDays).toBe(30);
  });
});

describe('removing the stack', () => {
  it('leaves what the README lists: the table, the API access logs, API Gateway\'s CloudWatch role and account setting', () => {
    const retained = Object.entries(s.json.Resources).filter(([, resource]) => resource.DeletionPolicy === 'Retain').map(([id]) => id);
    expect(retained.sort()).toEqual(
      [
        tableId(),
        resourceId(s.json, 'AWS::Logs::LogGroup', 'ApiAccessLogs'),
        resourceId(s.json, 'AWS::IAM::Role', 'ApiRestApiCloudWatchRole'),
        resourceId(s.json, 'AWS::ApiGateway::Account', 'ApiRestApiAccount'),
      ].sort(),
    );
  });
});

describe('alarms and dashboard', () => {
  const topic = () => ({ Ref: resourceId(s.json, 'AWS::SNS::Topic', 'MonitoringAlarmTopic') });
  const alarm = (properties: Record<string, unknown>) =>
    s.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [topic()],
      TreatMissingData: 'notBreaching',
      ...properties,
    });
  const alarmNamed = (name: string) => s.json.Resources[resourceId(s.json, 'AWS::CloudWatch::Alarm', `Monitoring${name}`)]!.Properties!;

  it('failed operations (the engine metric) above zero', () => {
    alarm({ Namespace: NAMESPACE, MetricName: METRICS.failed, Statistic: 'Sum', Threshold: 0, Dimensions: Match.absent() });
  });

  it('invalid records (the watcher\'s metric) above zero: their status error comes from no operation', () => {
    alarm({ Namespace: NAMESPACE, MetricName: METRICS.invalidRecords, Statistic: 'Sum', Threshold: 0, Dimensions: Match.absent() });
  });

  it('messages in the dead-letter queue and the stream failure queue', () => {
    for (const id of [queueId('DeadLetterQueue'), queueId('StreamFailureQueue')]) {
      alarm({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: getAtt(id, 'QueueName') }],
        Threshold: 0,
      });
    }
  });

  it('watcher iterator age', () => {
    alarm({
      Namespace: 'AWS/Lambda',
      MetricName: 'IteratorAge',
      Statistic: 'Maximum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId('watcher') } }],
      Threshold: ITERATOR_AGE_ALARM_MS,
    });
    expect(ITERATOR_AGE_ALARM_MS).toBeLessThan(WATCHER.maxRecordAgeSeconds * 1000);
  });

  it('the watcher\'s stream failure destination unreachable: Lambda could not record a batch it gave up on', () => {
    expect(alarmNamed('WatcherDestinationDeliveryFailures')).toMatchObject({
      Namespace: 'AWS/Lambda',
      MetricName: 'DestinationDeliveryFailures',
      Statistic: 'Sum',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId('watcher') } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic()],
      OKActions: [topic()],
    });
  });

  it('executor backlog: more visible operation messages than one batch per concurrent invocation, all along 15 minutes', () => {
    expect(executorBacklogThreshold(EXECUTOR.maxConcurrency)).toBe(EXECUTOR.batchSize * EXECUTOR.maxConcurrency);
    const backlog = alarmNamed('ExecutorBacklog');
    expect(backlog).toMatchObject({
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: getAtt(queueId('OperationQueue'), 'QueueName') }],
      // The lowest count of each period: above the threshold throughout, not at one peak.
      Statistic: 'Minimum',
      Threshold: EXECUTOR.batchSize * EXECUTOR.maxConcurrency,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [topic()],
      OKActions: [topic()],
    });
    expect((backlog.Period as number) * (backlog.EvaluationPeriods as number)).toBe(15 * 60);
  });

  it('reconciler not running: no pass counted itself over three reconciler intervals, missing data breaching', () => {
    expect(alarmNamed('ReconcilerNotRunning')).toMatchObject({
      Namespace: NAMESPACE,
      MetricName: METRICS.reconcilerPasses,
      Statistic: 'SampleCount',
      Period: 3 * RECONCILER.intervalMinutes * 60,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'LessThanThreshold',
      // No data at all is what a reconciler that is never invoked leaves.
      TreatMissingData: 'breaching',
      AlarmActions: [topic()],
      OKActions: [topic()],
    });
    // The dimensionless count the reconciler reports each pass.
    expect(alarmNamed('ReconcilerNotRunning').Dimensions).toBeUndefined();
  });

  it.each(FUNCTION_NAMES)('%s errors and throttles', (name) => {
    for (const metric of ['Errors', 'Throttles']) {
      alarm({ Namespace: 'AWS/Lambda', MetricName: metric, Statistic: 'Sum', Dimensions: [{ Name: 'FunctionName', Value: { Ref: functionId(name) } }], Threshold: 0 });
    }
  });

  it('leaked volumes: the largest count of the passes over three reconciler intervals; a period without a pass keeps the alarm as it is', () => {
    expect(alarmNamed('LeakedVolumes')).toMatchObject({
      Namespace: NAMESPACE,
      MetricName: METRICS.leaked,
      Statistic: 'Maximum',
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: 1,
      TreatMissingData: 'ignore',
      AlarmActions: [topic()],
      OKActions: [topic()],
    });
    // One pass per interval at drifting times: a period must span two intervals to hold a pass for
    // certain, and three still hold one when a pass is missed.
    expect(alarmNamed('LeakedVolumes').Period).toBe(3 * RECONCILER.intervalMinutes * 60);
  });

  it('API 5xx and leaked volumes; every alarm notifies the SSL-only topic', () => {
    alarm({ Namespace: 'AWS/ApiGateway', MetricName: '5XXError', Statistic: 'Sum', Threshold: 0 });
    alarm({ Namespace: NAMESPACE, MetricName: METRICS.leaked, Threshold: 0, TreatMissingData: 'ignore' });
    const alarms = s.template.findResources('AWS::CloudWatch::Alarm');
    expect(Object.keys(alarms)).toHaveLength(9 + 2 * FUNCTION_NAMES.length + 1);
    for (const resource of Object.values(alarms)) expect(resource.Properties.AlarmActions).toEqual([topic()]);
    s.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
    s.template.resourceCountIs('AWS::SNS::Subscription', 0);
  });

  it('the topic lets this account\'s CloudWatch alarms publish: its own policy replaces SNS\'s default one', () => {
    const policies = Object.values(s.template.findResources('AWS::SNS::TopicPolicy'));
    expect(policies).toHaveLength(1);
    expect(policies[0]!.Properties.Topics).toEqual([topic()]);
    const statements = policies[0]!.Properties.PolicyDocument.Statement as Statement[];
    const allows = statements.filter((statement) => statement.Effect === 'Allow');
    expect(allows).toEqual([
      expect.objectContaining({
        Principal: { Service: 'cloudwatch.amazonaws.com' },
        Action: 'sns:Publish',
        Resource: topic(),
        Condition: {
          StringEquals: { 'aws:SourceAccount': TEST_ENV.account },
          ArnLike: { 'aws:SourceArn': `arn:aws:cloudwatch:${TEST_ENV.region}:${TEST_ENV.account}:alarm:*` },
        },
      }),
    ]);
    // Unencrypted, so CloudWatch needs no KMS key permission.
    expect(Object.values(s.template.findResources('AWS::SNS::Topic'))[0]!.Properties.KmsMasterKeyId).toBeUndefined();
  });

  it('every engine metric an alarm or the dashboard reads is in this deployment\'s namespace, the one its functions are given', () => {
    const engineMetrics = new Set<string>([METRICS.failed, METRICS.invalidRecords, METRICS.leaked, METRICS.reconcilerPasses]);
    const alarms = Object.values(s.template.findResources('AWS::CloudWatch::Alarm')).filter((resource) => engineMetrics.has(resource.Properties.MetricName));
    expect(alarms.map((resource) => resource.Properties.MetricName as string).sort()).toEqual([METRICS.leaked, METRICS.reconcilerPasses, METRICS.failed, METRICS.invalidRecords].sort());
    for (const resource of alarms) expect(resource.Properties.Namespace).toBe(NAMESPACE);
    for (const name of ['watcher', 'executor', 'reconciler'] as const) {
      expect((s.json.Resources[functionId(name)]!.Properties!.Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_METRICS_NAMESPACE).toBe(NAMESPACE);
    }
    // The dashboard's body, its CloudFormation references replaced by a placeholder.
    const joined = Object.values(s.template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody as { 'Fn::Join': [string, unknown[]] };
    const body = JSON.parse(joined['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : 'ref')).join('')) as {
      widgets: { properties: { metrics?: (string | { expression?: string })[][] } }[];
    };
    const lines = body.widgets.flatMap((widget) => widget.properties.metrics ?? []);
    const searches = lines.flatMap((line) => line.flatMap((part) => (typeof part === 'object' && part.expression ? [part.expression] : [])));
    expect(searches).toHaveLength(2);
    // The namespace quoted: a stack name may hold hyphens, which a search's schema takes only in quotes.
    for (const search of searches) expect(search.startsWith(`SEARCH('{"${NAMESPACE}",`)).toBe(true);
    const engineLines = lines.filter((line) => typeof line[0] === 'string' && !line[0].startsWith('AWS/'));
    expect(engineLines.map((line) => line.slice(0, 2))).toEqual([
      [NAMESPACE, METRICS.failed],
      [NAMESPACE, METRICS.invalidRecords],
      [NAMESPACE, METRICS.leaked],
      [NAMESPACE, METRICS.orphanVolumesFound],
    ]);
    // Every metric the functions publish is read: by an alarm, or on the dashboard by name or by a search of its name.
    const named = new Set([
      ...alarms.map((resource) => resource.Properties.MetricName as string),
      ...engineLines.map((line) => line[1]),
      ...searches.map((search) => /MetricName="(\w+)"/.exec(search)?.[1]),
    ]);
    for (const [key, metric] of Object.entries(METRICS)) if (key !== 'namespacePrefix') expect(named.has(metric), metric).toBe(true);
    expect(Object.values(s.template.findOutputs('MetricsNamespace'))[0]!.Value).toBe(NAMESPACE);
  });

  it('dashboard: operations by outcome, latency, queue depth (visible, in flight, delayed) and age, stream lag', () => {
    const body = JSON.stringify(Object.values(s.template.findResources('AWS::CloudWatch::Dashboard'))[0]!.Properties.DashboardBody);
    expect(body).toContain(`{\\\\\\"${NAMESPACE}\\\\\\",operation,outcome} MetricName=\\\\\\"${METRICS.operations}\\\\\\"`);
    expect(body).toContain(`{\\\\\\"${NAMESPACE}\\\\\\",operation} MetricName=\\\\\\"${METRICS.latency}\\\\\\"`);
    for (const metric of ['ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed', 'ApproximateAgeOfOldestMessage', 'IteratorAge', METRICS.failed, METRICS.invalidRecords, METRICS.leaked]) expect(body).toContain(metric);
  });
});

describe('cdk-nag', () => {
  it('sees the template as deployed: the app carries cdk.json\'s context (feature flags)', () => {
    expect(Object.keys(CDK_JSON_CONTEXT).length).toBeGreaterThan(0);
    for (const [key, value] of Object.entries(CDK_JSON_CONTEXT)) expect(s.app.node.tryGetContext(key), key).toEqual(value);
  });

  it('every acknowledgement answers a finding the checks make: none is left for a rule or a resource that no longer needs it', () => {
    expect(unneededAcknowledgements(s.app)).toEqual([]);
  });

  it('AwsSolutions checks pass (synthesis throws on an unacknowledged finding) and every acknowledgement gives a specific reason', () => {
    const acknowledged = acknowledgements(s.app);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { id, reason } of acknowledged) {
      expect(id).toMatch(/AwsSolutions-/);
      expect(reason.length, id).toBeGreaterThan(40);
    }
  });
});
