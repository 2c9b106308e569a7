import type { Logger } from '@aws-lambda-powertools/logger';
import type { MiddlewareObj } from '@middy/core';
import type { Log } from '../engine/ports.js';

/** The engine's Log port on a Powertools Logger (structured JSON, correlation ids). */
export function powertoolsLog(logger: Logger): Log {
  return {
    debug: (message, attributes) => logger.debug(message, attributes ?? {}),
    info: (message, attributes) => logger.info(message, attributes ?? {}),
    warn: (message, attributes) => logger.warn(message, attributes ?? {}),
    error: (message, attributes) => logger.error(message, attributes ?? {}),
  };
}

/**
 * Middy middleware giving every log line of an invocation the correlation id `pick` finds in the
 * event (e.g. a scheduled event's id), so one run can be followed across its lines.
 */
export function correlateLogs<E>(logger: Logger, pick: (event: E) => string | undefined): MiddlewareObj<E> {
  return {
    before: async ({ event }) => {
      const id = pick(event);
      if (id) logger.setCorrelationId(id);
    },
  };
}
