/** The details a local status line carries (docs/local.md's example), and lines an odd record still gets. */
import { marshall } from '@aws-sdk/util-dynamodb';
import { Writable } from 'node:stream';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { itemKey } from '../../lib/aws/record-item.js';
import { consoleLog, describeTransition, lineWriter } from '../../lib/local/console.js';

const attachmentKey = { kind: 'attachment' as const, volumeId: 'data-1', instanceId: 'i-64e651bd7792180d7' };
const keys = itemKey(attachmentKey);
const image = (status: object | null, extra: object = {}) => ({ ...keys, kind: 'attachment', volumeId: 'data-1', instanceId: 'i-64e651bd7792180d7', status, ...extra });
const modify = (oldImage: object, newImage: object): DynamoDBRecord => ({
  eventName: 'MODIFY',
  dynamodb: { SequenceNumber: '1', Keys: marshall(keys) as never, OldImage: marshall(oldImage) as never, NewImage: marshall(newImage) as never },
});
const status = (state: string, message?: string) => ({ state, attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z', ...(message === undefined ? {} : { message }) });

describe('local status line details', () => {
  it("name an attachment's device and its status message after the change, as docs/local.md shows", () => {
    expect(describeTransition(modify(image(status('pending')), image(status('attaching', 'attaching as /dev/sdf'), { device: '/dev/sdf' })))).toBe(
      'attachment/data-1/i-64e651bd7792180d7  pending → attaching  /dev/sdf  attaching as /dev/sdf',
    );
  });

  it('leave out an empty status message rather than end the line in a separator', () => {
    expect(describeTransition(modify(image(status('attaching')), image(status('attached', ''), { device: '/dev/sdf' })))).toBe(
      'attachment/data-1/i-64e651bd7792180d7  attaching → attached  /dev/sdf',
    );
  });

  it('read a status written as null straight into the table as no status', () => {
    expect(describeTransition(modify(image(null), image(status('pending'))))).toBe('attachment/data-1/i-64e651bd7792180d7  (no status) → pending');
  });
});

describe('a console whose output failed', () => {
  it('drops its lines after a failed write, rather than buffer them, also when the stream stays open after the error', async () => {
    const attempted: string[] = [];
    const kept = new Writable({
      autoDestroy: false,
      write(chunk: Buffer, _encoding, callback) {
        attempted.push(chunk.toString());
        callback(Object.assign(new Error('write EPIPE'), { code: 'EPIPE', syscall: 'write' }));
      },
    });
    const log = consoleLog({ write: lineWriter(kept), now: () => new Date('2026-01-02T03:04:05Z') });
    log.info('first');
    await new Promise((resolve) => setImmediate(resolve));
    log.info('second');
    await new Promise((resolve) => setImmediate(resolve));
    expect(attempted).toEqual(['03:04:05Z INFO  first\n']);
    // Dropped, not held in the stream's buffer for a write that never comes.
    expect(kept.writableLength).toBe(0);
  });
});
