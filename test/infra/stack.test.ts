import { readFileSync } from 'node:fs';
import { App, Validations } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../infra/constructs/api.js';
import { ITERATOR_AGE_ALARM_MS } from '../../infra/constructs/monitoring.js';
import { EbsProvisionerStack } from '../../infra/stack.js';
import { API, EXECUTOR, METRICS, OWNERSHIP_TAGS, QUEUE, RECONCILER, TABLE, WATCHER } from '../../lib/settings.js';

const OWNER = 'test-owner';

/** Skips esbuild bundling (the slow part): `npm run synth` in CI bundles for real. */
function synth(props: ConstructorParameters<typeof EbsProvisionerStack>[2], nag = false) {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new EbsProvisionerStack(app, 'Test', { env: { account: '123456789012', region: 'eu-west-1' }, ...props });
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack, template: Template.fromStack(stack) };
}

type Statement = { Action: string | string[]; Resource: unknown; Condition?: Record<string, Record<string, string>>; Effect: string };

function statementsOf(template: Template, roleIdPrefix: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.entries(policies)
    .filter(([, policy]) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref.startsWith(roleIdPrefix)))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

const actionsOf = (statement: Statement) => [statement.Action].flat();

describe('EbsProvisionerStack', () => {
  let template: Template;
  let stack: EbsProvisionerStack;
  beforeAll(() => {
    ({ template, stack } = synth({ ownerTagValue: OWNER, alarmEmail: 'ops@example.com' }));
  });

  it('table: on-demand, NEW_AND_OLD_IMAGES stream, PITR, encryption, instance index, retained with deletion protection', () => {
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Retain',
      Properties: Match.objectLike({
        BillingMode: 'PAY_PER_REQUEST',
        StreamSpecification: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        DeletionProtectionEnabled: true,
        KeySchema: [
          { AttributeName: TABLE.partitionKey, KeyType: 'HASH' },
          { AttributeName: TABLE.sortKey, KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [Match.objectLike({
          IndexName: TABLE.instanceIndex.name,
          KeySchema: [
            { AttributeName: TABLE.instanceIndex.partitionKey, KeyType: 'HASH' },
            { AttributeName: TABLE.instanceIndex.sortKey, KeyType: 'RANGE' },
          ],
        })],
      }),
    });
  });

  it('operation queue: SSE, visibility timeout, retention and redrive from settings; every queue SSL-only', () => {
    const queues = template.findResources('AWS::SQS::Queue');
    expect(Object.keys(queues)).toHaveLength(3);
    for (const queue of Object.values(queues)) {
      expect(queue.Properties.SqsManagedSseEnabled).toBe(true);
      expect(queue.Properties.MessageRetentionPeriod).toBe(QUEUE.retentionDays * 86400);
    }
    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: QUEUE.visibilityTimeoutSeconds,
      RedrivePolicy: { deadLetterTargetArn: Match.anyValue(), maxReceiveCount: QUEUE.maxReceiveCount },
    });
    expect(QUEUE.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(EXECUTOR.timeoutSeconds * 6);
    const sslDenies = Object.values(template.findResources('AWS::SQS::QueuePolicy')).filter((policy) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).some(
        (s) => s.Effect === 'Deny' && s.Condition?.Bool?.['aws:SecureTransport'] === 'false'));
    expect(sslDenies).toHaveLength(3);
  });

  it('four functions: Node.js 22, arm64, own roles, log retention, Powertools environment, settings timeouts', () => {
    const functions = template.findResources('AWS::Lambda::Function');
    const ours = Object.values(functions).filter((fn) => fn.Properties.Runtime === 'nodejs22.x');
    expect(ours).toHaveLength(4);
    const roles = new Set(ours.map((fn) => JSON.stringify(fn.Properties.Role)));
    expect(roles.size).toBe(4);
    for (const fn of ours) {
      expect(fn.Properties.Architectures).toEqual(['arm64']);
      expect(fn.Properties.Handler).toBe('index.handler');
      expect(fn.Properties.LoggingConfig).toBeDefined();
      const env = fn.Properties.Environment.Variables;
      expect(Object.keys(env)).toEqual(expect.arrayContaining([
        'TABLE_NAME', 'QUEUE_URL', 'OWNER_TAG_VALUE', 'POWERTOOLS_SERVICE_NAME', 'POWERTOOLS_METRICS_NAMESPACE', 'LOG_LEVEL', 'EC2_RATE_BUDGET', 'NODE_OPTIONS',
      ]));
      expect(env.OWNER_TAG_VALUE).toBe(OWNER);
      expect(env.POWERTOOLS_METRICS_NAMESPACE).toBe(METRICS.namespace);
      expect(env.KMS_KEY_ARN).toBeUndefined();
    }
    expect(ours.map((fn) => [fn.Properties.Timeout, fn.Properties.MemorySize]).sort()).toEqual(
      [API, WATCHER, EXECUTOR, RECONCILER].map((s) => [s.timeoutSeconds, s.memoryMiB]).sort());
    template.resourcePropertiesCountIs('AWS::Logs::LogGroup', { RetentionInDays: 30 }, 5);
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: RECONCILER.timeoutSeconds, ReservedConcurrentExecutions: 1 });
  });

  it('stream → watcher mapping carries every setting, with an on-failure destination and no filter', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Table'), 'StreamArn'] },
      StartingPosition: 'TRIM_HORIZON',
      BatchSize: WATCHER.batchSize,
      MaximumBatchingWindowInSeconds: WATCHER.maxBatchingWindowSeconds,
      BisectBatchOnFunctionError: WATCHER.bisectBatchOnError,
      MaximumRetryAttempts: WATCHER.retryAttempts,
      MaximumRecordAgeInSeconds: WATCHER.maxRecordAgeSeconds,
      ParallelizationFactor: WATCHER.parallelizationFactor,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [Match.stringLikeRegexp('StreamFailureQueue'), 'Arn'] } } },
      FilterCriteria: Match.absent(),
    });
  });

  it('queue → executor mapping carries every setting', () => {
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('OperationQueue'), 'Arn'] },
      BatchSize: EXECUTOR.batchSize,
      MaximumBatchingWindowInSeconds: EXECUTOR.maxBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: EXECUTOR.maxConcurrency },
    });
  });

  it('reconciler runs on the schedule from settings', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${RECONCILER.intervalMinutes} minutes)`,
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [Match.stringLikeRegexp('Reconciler'), 'Arn'] } })],
    });
  });

  it('executor EC2 mutations carry the ownership conditions', () => {
    const statements = statementsOf(template, 'Executor');
    const withAction = (action: string) => statements.filter((s) => actionsOf(s).includes(action));
    const ownerKey = OWNERSHIP_TAGS.owner;
    const create = withAction('ec2:CreateVolume');
    expect(create.find((s) => JSON.stringify(s.Resource).includes('volume/'))?.Condition).toEqual({ StringEquals: { [`aws:RequestTag/${ownerKey}`]: OWNER } });
    // The only unconditioned CreateVolume resource is the snapshot it may start from.
    for (const s of create.filter((s) => !s.Condition)) expect(JSON.stringify(s.Resource)).toContain('snapshot/*');
    expect(withAction('ec2:CreateTags')).toEqual([expect.objectContaining({ Condition: { StringEquals: { 'ec2:CreateAction': 'CreateVolume' } } })]);
    for (const action of ['ec2:AttachVolume', 'ec2:DetachVolume', 'ec2:DeleteVolume', 'ec2:ModifyVolume']) {
      const onVolumes = withAction(action).filter((s) => JSON.stringify(s.Resource).includes('volume/'));
      expect(onVolumes, action).toHaveLength(1);
      expect(onVolumes[0]!.Condition, action).toEqual({ StringEquals: { [`ec2:ResourceTag/${ownerKey}`]: OWNER } });
      for (const s of withAction(action).filter((s) => !s.Condition)) expect(JSON.stringify(s.Resource), action).toContain('instance/*');
    }
    expect(withAction('ec2:DescribeVolumes')[0]!.Resource).toBe('*');
    expect(statements.flatMap(actionsOf).filter((a) => a.startsWith('kms:'))).toEqual([]);
  });

  it('grants per function: only the executor mutates EC2, only the reconciler and executor describe, the api only touches the table', () => {
    const actions = (prefix: string) => new Set(statementsOf(template, prefix).flatMap(actionsOf));
    const api = actions('Api'); const watcher = actions('Watcher'); const reconciler = actions('Reconciler'); const executor = actions('Executor');
    expect([...api].filter((a) => !a.startsWith('dynamodb:') && !a.startsWith('logs:'))).toEqual([]);
    expect([...api].some((a) => a.startsWith('sqs:'))).toBe(false);
    expect(watcher.has('dynamodb:GetRecords')).toBe(true);
    expect(watcher.has('sqs:SendMessage')).toBe(true);
    expect([...watcher].some((a) => a.startsWith('ec2:'))).toBe(false);
    expect(executor.has('sqs:ReceiveMessage') && executor.has('sqs:DeleteMessage') && executor.has('sqs:SendMessage')).toBe(true);
    expect(reconciler.has('sqs:SendMessage') && reconciler.has('ec2:DescribeVolumes')).toBe(true);
    expect([...reconciler].filter((a) => a.startsWith('ec2:') && !a.startsWith('ec2:Describe'))).toEqual([]);
    expect(reconciler.has('sqs:ReceiveMessage')).toBe(false);
  });

  it('REST API: IAM authorization on every method, path validation, stage throttling and access logs, routes match docs/openapi.json', () => {
    const methods = Object.values(template.findResources('AWS::ApiGateway::Method'));
    const served = methods.filter((m) => m.Properties.HttpMethod !== 'OPTIONS');
    expect(served.length).toBe(Object.values(API_ROUTES).flat().length);
    for (const method of served) {
      expect(method.Properties.AuthorizationType).toBe('AWS_IAM');
      expect(method.Properties.RequestValidatorId).toBeDefined();
    }
    template.hasResourceProperties('AWS::ApiGateway::Stage', {
      MethodSettings: [Match.objectLike({ ThrottlingRateLimit: API.throttleRatePerSecond, ThrottlingBurstLimit: API.throttleBurst })],
      AccessLogSetting: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
    const openapi = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8')) as { paths: Record<string, object> };
    const documented = Object.fromEntries(Object.entries(openapi.paths).map(([p, ops]) => [p, Object.keys(ops).map((m) => m.toUpperCase()).sort()]));
    expect(Object.fromEntries(Object.entries(API_ROUTES).map(([p, m]) => [p, [...m].sort()]))).toEqual(documented);
  });

  it('alarms: engine failures, DLQ, stream failures, iterator age, errors and throttles per function, API 5xx, all to the topic', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')).map((a) => a.Properties);
    const byMetric = (name: string) => alarms.filter((a) => a.MetricName === name);
    expect(byMetric(METRICS.failed)).toEqual([expect.objectContaining({ Namespace: METRICS.namespace, Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', Statistic: 'Sum' })]);
    expect(byMetric('ApproximateNumberOfMessagesVisible')).toHaveLength(2);
    for (const alarm of byMetric('ApproximateNumberOfMessagesVisible')) expect(alarm.Threshold).toBe(0);
    expect(byMetric('IteratorAge')).toEqual([expect.objectContaining({ Threshold: ITERATOR_AGE_ALARM_MS })]);
    expect(byMetric('Errors')).toHaveLength(4);
    expect(byMetric('Throttles')).toHaveLength(4);
    expect(byMetric('5XXError')).toEqual([expect.objectContaining({ Namespace: 'AWS/ApiGateway', Threshold: 0 })]);
    for (const alarm of alarms) {
      expect(alarm.AlarmActions).toEqual([{ Ref: expect.stringMatching(/AlarmTopic/) }]);
      expect(alarm.TreatMissingData).toBe('notBreaching');
    }
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com' });
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('apiAuthorization=none'))).toHaveLength(0);
  });
});

describe('EbsProvisionerStack options', () => {
  it('with a KMS key: customer-managed table encryption and KMS use only through EC2; apiAuthorization=none warns', () => {
    const keyArn = 'arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab';
    const { template, stack } = synth({ kmsKeyArn: keyArn, apiAuthorization: 'none', tableRemovalPolicy: 'destroy', deletionProtection: false, executorMaxConcurrency: 2 });
    template.hasResource('AWS::DynamoDB::Table', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({ SSESpecification: { SSEEnabled: true, SSEType: 'KMS', KMSMasterKeyId: keyArn }, DeletionProtectionEnabled: false }),
    });
    const kms = statementsOf(template, 'Executor').filter((s) => actionsOf(s).some((a) => a.startsWith('kms:') && s.Condition));
    expect(kms.length).toBeGreaterThan(0);
    for (const s of kms) expect(s.Condition?.StringEquals?.['kms:ViaService']).toEqual('ec2.eu-west-1.amazonaws.com');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 2 } });
    template.hasResourceProperties('AWS::ApiGateway::Method', { AuthorizationType: 'NONE' });
    expect(Annotations.fromStack(stack).findWarning('*', Match.stringLikeRegexp('apiAuthorization=none'))).toHaveLength(1);
  });

  it('cdk-nag AwsSolutions: no unacknowledged findings', () => {
    // No env: account and region stay tokens, as in a real `cdk deploy` without a pinned environment.
    const { app } = synth({ env: undefined }, true);
    expect(() => app.synth({ force: true })).not.toThrow();
  });
});
