import { RESERVED_LOG_KEYS, type Log } from '../engine/ports.js';

export interface LogEntry {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  attributes?: Record<string, unknown>;
}

/** Keeps every entry, so tests can assert what was said; refuses attributes the deployed logger would drop (`RESERVED_LOG_KEYS`). */
export class RecordingLog implements Log {
  readonly entries: LogEntry[] = [];

  debug(message: string, attributes?: Record<string, unknown>): void {
    this.add('debug', message, attributes);
  }
  info(message: string, attributes?: Record<string, unknown>): void {
    this.add('info', message, attributes);
  }
  warn(message: string, attributes?: Record<string, unknown>): void {
    this.add('warn', message, attributes);
  }
  error(message: string, attributes?: Record<string, unknown>): void {
    this.add('error', message, attributes);
  }

  private add(level: LogEntry['level'], message: string, attributes?: Record<string, unknown>): void {
    // Deployed, such an attribute would be dropped without a trace: every test that logs one fails.
    const reserved = Object.keys(attributes ?? {}).filter((key) => RESERVED_LOG_KEYS.includes(key));
    if (reserved.length > 0) throw new Error(`log line "${message}" has attributes named ${reserved.join(', ')}, which the deployed logger drops`);
    this.entries.push(attributes ? { level, message, attributes } : { level, message });
  }
}

const ignore = (): void => {};
/** A log that drops everything. */
export const silentLog: Log = { debug: ignore, info: ignore, warn: ignore, error: ignore };
