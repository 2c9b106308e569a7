/** Readable terminal output for the local runtime: one line per log entry and per status change. */
import type { Writable } from 'node:stream';
import type { DynamoDBRecord } from 'aws-lambda';
import { keyString } from '../domain/records.js';
import type { Log } from '../engine/ports.js';
import { toRecordChange, type StreamHandler } from '../functions/handlers.js';

type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** The time of day in UTC, marked as such: `14:03:07Z`. */
function time(now: Date): string {
  return `${now.toISOString().slice(11, 19)}Z`;
}

function format(attributes?: Record<string, unknown>): string {
  if (!attributes) return '';
  return Object.entries(attributes)
    .map(([key, value]) => ` ${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join('');
}

/**
 * Writes each line to `stream` while it takes them. Once a write fails (the pipe it fed was closed,
 * as `npm start | head` closes it; the terminal is gone), the lines are dropped and the pipeline
 * runs on, a stop still stopping it in order: the stream's 'error', left unhandled, crashed the
 * process on the next line.
 */
export function lineWriter(stream: Writable): (line: string) => void {
  let gone = false;
  stream.on('error', () => {
    gone = true;
  });
  return (line) => {
    if (!gone && !stream.destroyed) stream.write(`${line}\n`);
  };
}

export function consoleLog(options: { level?: Level; write?: (line: string) => void; now?: () => Date } = {}): Log {
  const min = ORDER[options.level ?? 'info'];
  const write = options.write ?? lineWriter(process.stdout);
  const now = options.now ?? (() => new Date());
  const at = (level: Level) => (message: string, attributes?: Record<string, unknown>) => {
    if (ORDER[level] >= min) write(`${time(now())} ${level.toUpperCase().padEnd(5)} ${message}${format(attributes)}`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function field(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const name of path) current = current && typeof current === 'object' ? (current as Record<string, unknown>)[name] : undefined;
  return current;
}

/** "volume/data-1  creating → available  vol-0abc…", for a stream record that changed a status. */
export function describeTransition(record: DynamoDBRecord): string | undefined {
  const change = toRecordChange(record);
  if (!change) return undefined;
  const before = field(change.oldRecord, 'status', 'state');
  const after = field(change.newRecord, 'status', 'state');
  const name = keyString(change.key);
  if (change.eventName === 'REMOVE') return `${name}  removed`;
  if (before === after && change.eventName === 'MODIFY') return undefined;
  const details = [field(change.newRecord, 'ebsVolumeId'), field(change.newRecord, 'device'), field(change.newRecord, 'status', 'message')]
    .filter((v) => typeof v === 'string' && v.length > 0)
    .join('  ');
  // A record written straight into the table may have no status yet.
  const from = change.eventName === 'INSERT' ? 'new' : (before ?? '(no status)');
  return `${name}  ${from} → ${after ?? '(no status)'}${details ? `  ${details}` : ''}`;
}

/**
 * The watcher's handler, printing the status change of each record it took. Printed after the
 * watcher, as a record it fails comes again with those after it (printed before, such a record's
 * line showed once per delivery, a change made once shown again).
 */
export function printingTransitions(handler: StreamHandler, log: Log): StreamHandler {
  return async (event) => {
    const response = await handler(event);
    const failed = new Set(response.batchItemFailures.map((failure) => failure.itemIdentifier));
    for (const record of event.Records) {
      // Delivery resumes at the first failed record.
      if (failed.has(record.dynamodb?.SequenceNumber ?? '')) break;
      const line = describeTransition(record);
      if (line) log.info(line);
    }
    return response;
  };
}

/**
 * A command to try the API with: a volume attached to the first demo instance, or, with none, a
 * volume in `availabilityZone` (an attach needs an instance).
 */
export function tryCommand(apiUrl: string, instanceIds: readonly string[], availabilityZone: string): string {
  const create = `npx ebs-provisioner --endpoint ${apiUrl} volumes create --size 20 --type gp3`;
  return instanceIds[0] ? `${create} --attach ${instanceIds[0]}` : `${create} --az ${availabilityZone}`;
}
