/** Lambda entry point: DynamoDB stream → watcher → operations enqueued; partial batch failures. */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import { createAwsAdapters } from '../lib/aws/adapters.js';
import { readFunctionEnvironment } from '../lib/functions/environment.js';
import { createWatcherHandler } from '../lib/functions/handlers.js';
import { powertoolsLog } from '../lib/functions/logging.js';
import { publishStoredMetrics } from '../lib/functions/metrics.js';
import { SystemClock } from '../lib/memory/clock.js';

const env = readFunctionEnvironment();
const logger = new Logger({ serviceName: 'ebs-provisioner-watcher' });
const { store, queue, metrics } = createAwsAdapters(env);

export const handler = middy(
  createWatcherHandler({ store, queue, clock: new SystemClock(), metrics, log: powertoolsLog(logger), config: env.engineConfig }),
)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishStoredMetrics(metrics.powertools));
