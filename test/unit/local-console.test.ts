import { marshall } from '@aws-sdk/util-dynamodb';
import { PassThrough, Writable } from 'node:stream';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { itemKey } from '../../lib/aws/record-item.js';
import { consoleLog, describeTransition, lineWriter, printingTransitions, tryCommand } from '../../lib/local/console.js';

describe('local runtime console', () => {
  it('stamps each line with the time of day in UTC, marked Z', () => {
    const lines: string[] = [];
    const log = consoleLog({ write: (line) => lines.push(line), now: () => new Date('2026-01-02T03:04:05.678Z') });
    log.info('HTTP API on http://127.0.0.1:3000');
    log.warn('careful', { port: 3000 });
    log.debug('not shown at info');
    expect(lines).toEqual(['03:04:05Z INFO  HTTP API on http://127.0.0.1:3000', '03:04:05Z WARN  careful port=3000']);
  });

  it('drops its lines once its output is gone (a closed pipe), rather than crash the runtime on the next one', async () => {
    const attempted: string[] = [];
    // What stdout does once the reader of its pipe has exited (`npm start | head -2`).
    const closedPipe = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        attempted.push(chunk.toString());
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' }));
      },
    });
    const log = consoleLog({ write: lineWriter(closedPipe), now: () => new Date('2026-01-02T03:04:05Z') });
    log.info('demo instances in us-east-1a: i-1');
    await new Promise((resolve) => setImmediate(resolve));
    log.info('SIGINT: stopping… (again to force)');
    await new Promise((resolve) => setImmediate(resolve));
    expect(attempted).toEqual(['03:04:05Z INFO  demo instances in us-east-1a: i-1\n']);
  });

  it("takes the error its output reports (EPIPE, or EIO once the terminal is gone): an 'error' no one listens for is thrown, and ends the process", () => {
    const stdout = new PassThrough();
    lineWriter(stdout);
    expect(() => stdout.emit('error', Object.assign(new Error('write EIO'), { code: 'EIO', syscall: 'write' }))).not.toThrow();
  });

  it('suggests attaching to the first demo instance, and without one a volume in the zone instead', () => {
    expect(tryCommand('http://127.0.0.1:3000', ['i-0123456789abcdef0', 'i-1'], 'us-east-1a')).toBe(
      'npx ebs-provisioner --endpoint http://127.0.0.1:3000 volumes create --size 20 --type gp3 --attach i-0123456789abcdef0',
    );
    expect(tryCommand('http://127.0.0.1:3000', [], 'us-east-1a')).toBe(
      'npx ebs-provisioner --endpoint http://127.0.0.1:3000 volumes create --size 20 --type gp3 --az us-east-1a',
    );
  });
});

describe('status lines', () => {
  const keys = itemKey({ kind: 'volume', volumeId: 'raw-ok' });
  const image = (status?: object) => ({ ...keys, kind: 'volume', volumeId: 'raw-ok', spec: { sizeGiB: 10, volumeType: 'gp3' }, ...(status ? { status } : {}) });
  const change = (eventName: 'INSERT' | 'MODIFY', oldImage: object | undefined, newImage: object): DynamoDBRecord => ({
    eventName,
    dynamodb: {
      SequenceNumber: '1',
      Keys: marshall(keys) as never,
      ...(oldImage ? { OldImage: marshall(oldImage) as never } : {}),
      NewImage: marshall(newImage) as never,
    },
  });
  const pending = { state: 'pending', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' };
  const creating = { ...pending, state: 'creating', message: 'creating' };

  it('says new → the state for a record created, and from → to for a change', () => {
    expect(describeTransition(change('INSERT', undefined, image(pending)))).toBe('volume/raw-ok  new → pending');
    expect(describeTransition(change('MODIFY', image(pending), image(creating)))).toBe('volume/raw-ok  pending → creating  creating');
  });

  it('says (no status) for a record written straight into the table without one, not new or ?', () => {
    expect(describeTransition(change('INSERT', undefined, image()))).toBe('volume/raw-ok  new → (no status)');
    expect(describeTransition(change('MODIFY', image(), image(creating)))).toBe('volume/raw-ok  (no status) → creating  creating');
  });

  it("prints each change once, when the watcher takes it: a record it fails comes again, with those after it", async () => {
    const lines: string[] = [];
    const log = consoleLog({ write: (line) => lines.push(line), now: () => new Date('2026-01-02T03:04:05Z') });
    const numbered = (n: number, record: DynamoDBRecord): DynamoDBRecord => ({ ...record, dynamodb: { ...record.dynamodb, SequenceNumber: String(n) } });
    const first = numbered(1, change('INSERT', undefined, image(pending)));
    const second = numbered(2, change('MODIFY', image(pending), image(creating)));
    const third = numbered(3, change('MODIFY', image(creating), image({ ...pending, state: 'available' })));
    let failing = true;
    const handler = printingTransitions(async () => ({ batchItemFailures: failing ? [{ itemIdentifier: '2' }] : [] }), log);
    await handler({ Records: [first, second, third] });
    failing = false;
    await handler({ Records: [second, third] });
    await expect(printingTransitions(async () => Promise.reject(new Error('watcher failed')), log)({ Records: [first] })).rejects.toThrow('watcher failed');
    expect(lines).toEqual([
      '03:04:05Z INFO  volume/raw-ok  new → pending',
      '03:04:05Z INFO  volume/raw-ok  pending → creating  creating',
      '03:04:05Z INFO  volume/raw-ok  creating → available',
    ]);
  });
});
