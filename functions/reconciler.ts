/** Lambda entry point: on a schedule, re-enqueue lost work, check records against EC2, report leaks. */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { ScheduledEvent } from 'aws-lambda';
import { createAwsAdapters } from '../lib/aws/adapters.js';
import { readFunctionEnvironment } from '../lib/functions/environment.js';
import { createReconcilerHandler } from '../lib/functions/handlers.js';
import { correlateLogs, powertoolsLog } from '../lib/functions/logging.js';
import { publishStoredMetrics } from '../lib/functions/metrics.js';
import { SystemClock } from '../lib/memory/clock.js';

const env = readFunctionEnvironment();
const logger = new Logger({ serviceName: 'ebs-provisioner-reconciler' });
const { store, queue, provider, rateBudget, metrics } = createAwsAdapters(env);

export const handler = middy<ScheduledEvent>(
  createReconcilerHandler({ store, queue, provider, rateBudget, clock: new SystemClock(), metrics, log: powertoolsLog(logger), config: env.engineConfig }),
)
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(correlateLogs<ScheduledEvent>(logger, (event) => event.id))
  .use(publishStoredMetrics(metrics.powertools));
