/** The local runtime's log lines: attributes, and which stream changes print a status line. */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { itemKey } from '../../lib/aws/record-item.js';
import { consoleLog, describeTransition, printingTransitions } from '../../lib/local/console.js';

describe('local log lines', () => {
  it('print a string attribute as it is and any other as JSON', () => {
    const lines: string[] = [];
    const log = consoleLog({ write: (line) => lines.push(line), now: () => new Date('2026-01-02T03:04:05Z') });
    log.error('stopping failed', { error: 'Error: moto_server did not stop', pids: [12, 13], port: 3000 });
    expect(lines).toEqual(['03:04:05Z ERROR stopping failed error=Error: moto_server did not stop pids=[12,13] port=3000']);
  });
});

describe('local status lines', () => {
  const keys = itemKey({ kind: 'volume', volumeId: 'data-1' });
  const image = (state: string, extra: object = {}) => ({
    ...keys,
    kind: 'volume',
    volumeId: 'data-1',
    spec: { sizeGiB: 10, volumeType: 'gp3' },
    status: { state, attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
    ...extra,
  });
  const record = (eventName: DynamoDBRecord['eventName'], images: { OldImage?: object; NewImage?: object }, keyItem: object = keys): DynamoDBRecord => ({
    eventName,
    dynamodb: {
      SequenceNumber: '1',
      Keys: marshall(keyItem) as never,
      ...(images.OldImage ? { OldImage: marshall(images.OldImage) as never } : {}),
      ...(images.NewImage ? { NewImage: marshall(images.NewImage) as never } : {}),
    },
  });

  it('say a record was removed', () => {
    expect(describeTransition(record('REMOVE', { OldImage: image('deleting') }))).toBe('volume/data-1  removed');
  });

  it('print nothing for a change that leaves the state as it was (a tag, a claim)', async () => {
    const retagged = record('MODIFY', { OldImage: image('available'), NewImage: image('available', { spec: { sizeGiB: 10, volumeType: 'gp3', tags: { team: 'db' } } }) });
    expect(describeTransition(retagged)).toBeUndefined();
    const lines: string[] = [];
    const log = consoleLog({ write: (line) => lines.push(line), now: () => new Date('2026-01-02T03:04:05Z') });
    await printingTransitions(async () => ({ batchItemFailures: [] }), log)({ Records: [retagged, record('MODIFY', { OldImage: image('available'), NewImage: image('in-use') })] });
    expect(lines).toEqual(['03:04:05Z INFO  volume/data-1  available → in-use']);
  });

  it('print nothing for an item whose key names no volume or attachment (the watcher reports it)', () => {
    const stray = { pk: 'CONFIG#x', sk: 'settings' };
    expect(describeTransition(record('INSERT', { NewImage: stray }, stray))).toBeUndefined();
  });
});
