import type { Logger } from '@aws-lambda-powertools/logger';
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
