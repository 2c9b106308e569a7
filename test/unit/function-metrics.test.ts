import { readFileSync } from 'node:fs';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { marshall } from '@aws-sdk/util-dynamodb';
import middy from '@middy/core';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { localLambdaContext } from '../../lib/api/node-server.js';
import { publishStoredMetrics } from '../../lib/functions/metrics.js';

const NAMESPACE = 'EbsProvisioner/Test';

/** Everything written to stdout and stderr (Powertools writes EMF and its warnings there outside dev mode). */
let written: string[];
beforeEach(() => {
  written = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** The EMF documents among the lines written. */
const emfDocuments = () =>
  written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((document) => '_aws' in document);

describe('publishStoredMetrics', () => {
  const metrics = () => {
    const powertools = new Metrics({ namespace: NAMESPACE });
    powertools.clearDefaultDimensions();
    return powertools;
  };

  it('writes nothing for an invocation that stored no metric', async () => {
    const handler = middy(async () => 'done').use(publishStoredMetrics(metrics()));
    expect(await handler({}, {} as Context)).toBe('done');
    expect(written).toEqual([]);
  });

  it('publishes the stored counters as one EMF document', async () => {
    const powertools = metrics();
    const handler = middy(async () => {
      powertools.addMetric('OperationsFailed', MetricUnit.Count, 1);
      powertools.addMetric('LeakedVolumes', MetricUnit.Count, 0);
    }).use(publishStoredMetrics(powertools));
    await handler({}, {} as Context);
    expect(emfDocuments()).toEqual([expect.objectContaining({ OperationsFailed: 1, LeakedVolumes: 0 })]);
    expect(written).toHaveLength(1);
    expect(powertools.hasStoredMetrics()).toBe(false);
  });

  it('publishes them when the handler throws too, and lets the error through', async () => {
    const powertools = metrics();
    const handler = middy(async () => {
      powertools.addMetric('InvalidRecords', MetricUnit.Count, 1);
      throw new Error('store unreachable');
    }).use(publishStoredMetrics(powertools));
    await expect(handler({}, {} as Context)).rejects.toThrow('store unreachable');
    expect(emfDocuments()).toEqual([expect.objectContaining({ InvalidRecords: 1 })]);
    expect(written).toHaveLength(1);
  });
});

describe('engine entry points', () => {
  it.each(['watcher', 'executor', 'reconciler'])('%s publishes its metrics only when it stored some', (name) => {
    const source = readFileSync(new URL(`../../functions/${name}.ts`, import.meta.url), 'utf8');
    expect(source).toContain('.use(publishStoredMetrics(metrics.powertools))');
    expect(source).not.toContain('logMetrics');
  });
});

/** The watcher's Lambda entry point, with batches that need no AWS call. */
describe('functions/watcher handler metrics', () => {
  let handler: (typeof import('../../functions/watcher.js'))['handler'];
  const env = { ...process.env };

  beforeAll(async () => {
    Object.assign(process.env, {
      TABLE_NAME: 'provisioner-records',
      QUEUE_URL: 'http://127.0.0.1:1/000000000000/operations',
      OWNER_TAG_VALUE: 'Test',
      POWERTOOLS_METRICS_NAMESPACE: NAMESPACE,
      AWS_REGION: 'eu-west-1',
      // Nothing here calls AWS; should anything try, it stays on this machine.
      AWS_ENDPOINT_URL: 'http://127.0.0.1:1',
    });
    ({ handler } = await import('../../functions/watcher.js'));
  });
  afterAll(() => {
    process.env = env;
  });

  it('an empty batch stores no metric and writes nothing', async () => {
    expect(await handler({ Records: [] }, localLambdaContext('watcher-1'))).toEqual({ batchItemFailures: [] });
    expect(written).toEqual([]);
  });

  it('a change naming no volume or attachment publishes InvalidRecords in one EMF document', async () => {
    const event: DynamoDBStreamEvent = {
      Records: [{ eventID: 'e-1', eventName: 'INSERT', dynamodb: { SequenceNumber: '1', Keys: marshall({ pk: 'OTHER#x', sk: 'OTHER' }) as never } }],
    };
    expect(await handler(event, localLambdaContext('watcher-2'))).toEqual({ batchItemFailures: [] });
    expect(emfDocuments()).toEqual([expect.objectContaining({ InvalidRecords: 1 })]);
    expect(written.join('')).not.toMatch(/No application metrics/);
  });
});
