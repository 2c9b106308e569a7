/**
 * Lambda entry point of the HTTP API (API Gateway REST proxy integration). Thin: wires the
 * DynamoDB record store, the shared rate budget (read only) and a JSON logger into the shared
 * handler in lib/api.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { createApiHandler } from '../lib/api/handler.js';
import { createAwsClients } from '../lib/aws/clients.js';
import { DynamoRateBudget } from '../lib/aws/dynamodb-rate-budget.js';
import { DynamoRecordStore } from '../lib/aws/dynamodb-store.js';
import { readRateBudgetEnvironment } from '../lib/functions/environment.js';
import { powertoolsLog } from '../lib/functions/logging.js';
import { SystemClock } from '../lib/memory/clock.js';
import { API } from '../lib/settings.js';

const tableName = process.env.TABLE_NAME;
if (!tableName) throw new Error('TABLE_NAME is not set');
const { rateBudgetTableName, accountRateBudgets } = readRateBudgetEnvironment();

const logger = new Logger({ serviceName: 'ebs-provisioner-api' });
const log = powertoolsLog(logger);

/** Every log line of a request carries API Gateway's request id, as shown to the client. */
const correlateWithRequestId: MiddlewareObj<APIGatewayProxyEvent> = {
  before: async ({ event }) => {
    logger.setCorrelationId(event.requestContext?.requestId);
  },
};

const { doc } = createAwsClients({ requestTimeoutMs: API.awsRequestTimeoutMs });

export const handler = createApiHandler({
  store: new DynamoRecordStore({ client: doc, tableName }),
  clock: new SystemClock(),
  log,
  ...(rateBudgetTableName ? { rateBudget: new DynamoRateBudget({ client: doc, tableName: rateBudgetTableName }) } : {}),
  ...(accountRateBudgets ? { accountRateBudgets } : {}),
  middlewares: [injectLambdaContext(logger, { resetKeys: true }), correlateWithRequestId],
});
