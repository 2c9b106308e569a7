/**
 * The four Lambda functions (api, watcher, executor, reconciler): minified ESM bundles built with
 * the local esbuild (no Docker), Node.js 22 on arm64, each with its own role and log group.
 */
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API, EXECUTOR, RECONCILER, WATCHER } from '../../lib/settings.js';

export type FunctionName = 'api' | 'watcher' | 'executor' | 'reconciler';
export const FUNCTION_NAMES: readonly FunctionName[] = ['api', 'watcher', 'executor', 'reconciler'];

/** The functions that publish metrics (the engine's, in the deployment's namespace): all but the api. */
export const METRIC_PUBLISHERS: readonly FunctionName[] = ['watcher', 'executor', 'reconciler'];

/** Timeout and memory per function, from lib/settings.ts. */
const SIZING: Record<FunctionName, { timeoutSeconds: number; memoryMiB: number }> = {
  api: API,
  watcher: WATCHER,
  executor: EXECUTOR,
  reconciler: RECONCILER,
};

/** Lets bundled CommonJS dependencies call `require` inside the ESM bundle. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'module'; const require = createRequire(import.meta.url);";

const BUNDLE_SIZE_SCRIPT = fileURLToPath(new URL('../bundle-size.mjs', import.meta.url));
const ENTRY_DIR = fileURLToPath(new URL('../../functions/', import.meta.url));

export interface FunctionsProps {
  logRetentionDays: number;
  /** The deployment's CloudWatch namespace, which the functions' metrics go to and the alarms read (METRIC_PUBLISHERS' environment). */
  metricsNamespace: string;
  /** Reserved concurrent executions per function; absent means the account's unreserved pool. */
  reservedConcurrency: Partial<Record<FunctionName, number>>;
  /** Environment per function, on top of the Powertools settings every function gets. */
  environment: Record<FunctionName, Record<string, string>>;
}

export class Functions extends Construct {
  readonly api: NodejsFunction;
  readonly watcher: NodejsFunction;
  readonly executor: NodejsFunction;
  readonly reconciler: NodejsFunction;

  constructor(scope: Construct, id: string, props: FunctionsProps) {
    super(scope, id);
    this.api = this.createFunction('api', props);
    this.watcher = this.createFunction('watcher', props);
    this.executor = this.createFunction('executor', props);
    this.reconciler = this.createFunction('reconciler', props);
  }

  /** All four functions by name, for alarms and the dashboard. */
  all(): Record<FunctionName, NodejsFunction> {
    return { api: this.api, watcher: this.watcher, executor: this.executor, reconciler: this.reconciler };
  }

  private createFunction(name: FunctionName, props: FunctionsProps): NodejsFunction {
    const id = name.charAt(0).toUpperCase() + name.slice(1);
    const logGroup = new logs.LogGroup(this, `${id}Logs`, {
      retention: props.logRetentionDays as logs.RetentionDays,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // An own role per function, writing only to its own log group (instead of the managed
    // AWSLambdaBasicExecutionRole, which allows every log group in the account).
    const role = new iam.Role(this, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Runs the ${name} function of ${Stack.of(this).stackName}`,
    });
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    const sizing = SIZING[name];
    const fn = new NodejsFunction(this, id, {
      entry: `${ENTRY_DIR}${name}.ts`,
      handler: 'handler',
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: sizing.memoryMiB,
      timeout: Duration.seconds(sizing.timeoutSeconds),
      role,
      logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      reservedConcurrentExecutions: props.reservedConcurrency[name],
      // The executor feeds its own queue on purpose (waits chained past SQS's 900 s delay, progress
      // checks, messages not yet due), chains the engine ends (attempt and operation-age budgets, a
      // modification-limit wait of 24 h at most); Terminate would dead-letter one after ~16 hops.
      ...(name === 'executor' ? { recursiveLoop: lambda.RecursiveLoop.ALLOW } : {}),
      environment: {
        POWERTOOLS_SERVICE_NAME: `ebs-provisioner-${name}`,
        // Read by lib/functions/environment.ts and given to the metrics explicitly; the api
        // publishes no metrics (functions/api.ts), so it is not given one.
        ...(METRIC_PUBLISHERS.includes(name) ? { POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace } : {}),
        LOG_LEVEL: 'INFO',
        // Stack traces point at the TypeScript sources through the bundled source map.
        NODE_OPTIONS: '--enable-source-maps',
        ...props.environment[name],
      },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        platform: 'node',
        mainFields: ['module', 'main'],
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        banner: ESM_REQUIRE_BANNER,
        // The SDK is bundled too: the functions run the client versions they are tested with,
        // not whatever the runtime ships.
        externalModules: [],
        forceDockerBundling: false,
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_inputDir: string, outputDir: string) => [
            `node "${BUNDLE_SIZE_SCRIPT}" ${name} "${outputDir}/index.mjs" "${outputDir}/index.mjs.map"`,
          ],
        },
      },
    });
    Validations.of(fn).acknowledge({
      id: 'AwsSolutions-L1',
      reason: 'Node.js 22 is the runtime the project supports and tests; moving to a newer runtime is a deliberate upgrade.',
    });
    return fn;
  }
}
