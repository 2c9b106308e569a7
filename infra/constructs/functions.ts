import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** ESM bundles still meet CommonJS dependencies that call `require`; give them one. */
const REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

export interface ProvisionerFunctionProps {
  /** File under functions/ without extension; also the function's Powertools service name suffix. */
  readonly entryName: 'api' | 'watcher' | 'executor' | 'reconciler';
  readonly timeoutSeconds: number;
  readonly memoryMiB: number;
  readonly environment: Record<string, string>;
  readonly logRetention: logs.RetentionDays;
  readonly reservedConcurrentExecutions?: number;
}

/**
 * One Lambda function built from functions/<entryName>.ts: Node.js 22 on arm64, a minified ESM
 * bundle with source maps built by the local esbuild, its own role and its own log group.
 */
export class ProvisionerFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: ProvisionerFunctionProps) {
    super(scope, id);
    const logGroup = new logs.LogGroup(this, 'LogGroup', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // An own role with only this log group instead of the managed AWSLambdaBasicExecutionRole (logs on `*`).
    this.role = new iam.Role(this, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    this.role.addToPolicy(new iam.PolicyStatement({
      actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
      resources: [logGroup.logGroupArn],
    }));
    this.fn = new NodejsFunction(this, 'Function', {
      entry: path.join(PROJECT_ROOT, 'functions', `${props.entryName}.ts`),
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: path.join(PROJECT_ROOT, 'package-lock.json'),
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      timeout: Duration.seconds(props.timeoutSeconds),
      memorySize: props.memoryMiB,
      role: this.role,
      logGroup,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        mainFields: ['module', 'main'],
        banner: REQUIRE_BANNER,
        forceDockerBundling: false,
      },
    });
    Validations.of(this.fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Node.js 22 is the runtime the project builds, tests and supports; upgrading is a deliberate, tested change.',
    });
  }

  /**
   * Acknowledges cdk-nag's wildcard finding (AwsSolutions-IAM5) for one resource pattern in this
   * function's policy; each call site states why that wildcard is the narrowest IAM allows.
   */
  acknowledgeWildcard(resource: string, reason: string): void {
    Validations.of(this.role).acknowledge({ id: `AwsSolutions::AwsSolutions-IAM5[Resource::${nagResourceName(this, resource)}]`, reason });
  }
}

/** Renders a resource the way cdk-nag names it in finding ids: tokens become `<Ref>` / `<LogicalId.Attr>`. */
function nagResourceName(scope: Construct, resource: string): string {
  const render = (part: unknown): string => {
    if (typeof part === 'string') return part;
    const token = part as { Ref?: string; 'Fn::GetAtt'?: [string, string]; 'Fn::Join'?: [string, unknown[]] };
    if (token.Ref) return `<${token.Ref}>`;
    if (token['Fn::GetAtt']) return `<${token['Fn::GetAtt'].join('.')}>`;
    if (token['Fn::Join']) return token['Fn::Join'][1].map(render).join(token['Fn::Join'][0]);
    throw new Error(`cannot name resource ${JSON.stringify(part)}`);
  };
  return render(Stack.of(scope).resolve(resource));
}
