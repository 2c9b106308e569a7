/** Lambda entry point: SQS operation messages → executor (batched EC2 calls); partial batch responses. */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { createAwsAdapters } from '../lib/aws/adapters.js';
import { readFunctionEnvironment } from '../lib/functions/environment.js';
import { createExecutorHandler } from '../lib/functions/handlers.js';
import { powertoolsLog } from '../lib/functions/logging.js';
import { publishStoredMetrics } from '../lib/functions/metrics.js';
import { SystemClock } from '../lib/memory/clock.js';

const env = readFunctionEnvironment();
const logger = new Logger({ serviceName: 'ebs-provisioner-executor' });
const { store, queue, provider, rateBudget, metrics } = createAwsAdapters(env);

export const handler = middy(
  createExecutorHandler({ store, queue, provider, rateBudget, clock: new SystemClock(), metrics, log: powertoolsLog(logger), config: env.engineConfig }),
)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishStoredMetrics(metrics.powertools));
