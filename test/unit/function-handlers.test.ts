import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { Logger } from '@aws-lambda-powertools/logger';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { correlateLogs, powertoolsLog } from '../../lib/functions/logging.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { itemKey, toItem } from '../../lib/aws/record-item.js';
import { readFunctionEnvironment, readRateBudgetEnvironment } from '../../lib/functions/environment.js';
import { DEFAULT_ENGINE_CONFIG, EC2_REQUEST_BUCKETS, environmentRateBudgets, resolveEngineConfig } from '../../lib/engine/config.js';
import { createExecutorHandler, createReconcilerHandler, createWatcherHandler, toRecordChange } from '../../lib/functions/handlers.js';
import { Executor } from '../../lib/engine/executor.js';
import { ProviderError, RESERVED_LOG_KEYS } from '../../lib/engine/ports.js';
import { Reconciler, SCAN_RESERVE_MS } from '../../lib/engine/reconciler.js';
import { RECONCILER } from '../../lib/settings.js';
import { FakeClock, MemoryOperationQueue, MemoryRecordStore, RecordingLog, RecordingMetrics } from '../../lib/memory/index.js';
import { sqsRecord } from './engine-fixtures.js';
import { inMemoryAwsWithVolume, volume as storedVolume } from './memory-store-fixtures.js';

const at = '2026-01-01T00:00:00.000Z';
/** What the stack sets for every engine function. */
const BASE_ENV = { TABLE_NAME: 't', QUEUE_URL: 'q', OWNER_TAG_VALUE: 's', POWERTOOLS_METRICS_NAMESPACE: 'EbsProvisioner/s' };
const volume = storedVolume('data-1', at, { version: 1 });

function streamRecord(sequence: string, newImage: object | undefined, keys = itemKey({ kind: 'volume', volumeId: 'data-1' })): DynamoDBRecord {
  return {
    eventID: `e-${sequence}`,
    eventName: 'INSERT',
    dynamodb: {
      SequenceNumber: sequence,
      Keys: marshall(keys) as never,
      ...(newImage ? { NewImage: marshall(newImage, { removeUndefinedValues: true }) as never } : {}),
    },
  };
}



/** The executor's handler over in-memory AWS holding the volume record `volume`. */
async function executorOverVolume() {
  const { store, provider, log, deps } = await inMemoryAwsWithVolume();
  return { store, provider, log, handler: createExecutorHandler(deps) };
}

describe('function handlers', () => {
  it('turns stream records into record changes, images untrusted', () => {
    const change = toRecordChange(streamRecord('100', toItem(volume)));
    expect(change).toEqual({ id: '100', eventName: 'INSERT', key: { kind: 'volume', volumeId: 'data-1' }, newRecord: expect.objectContaining({ volumeId: 'data-1', spec: volume.spec }) });
    expect(toRecordChange(streamRecord('101', undefined, { pk: 'SOMETHING', sk: 'ELSE' }))).toBeUndefined();
    // A change carries the image before it as well as the one after.
    const modified = streamRecord('103', toItem({ ...volume, generation: 2 }));
    modified.eventName = 'MODIFY';
    modified.dynamodb!.OldImage = marshall(toItem(volume), { removeUndefinedValues: true }) as never;
    expect(toRecordChange(modified)).toMatchObject({ id: '103', eventName: 'MODIFY', oldRecord: { generation: 1 }, newRecord: { generation: 2 } });
    // Without a sequence number a failure could not be reported back for it.
    const unnumbered = streamRecord('102', toItem(volume));
    delete unnumbered.dynamodb!.SequenceNumber;
    expect(toRecordChange(unnumbered)).toBeUndefined();
  });

  it('executor: hands each message its delivery count when SQS gives a whole number of deliveries, none otherwise', async () => {
    const { handler } = await executorOverVolume();
    const message = JSON.stringify({ op: 'create-volume', key: { kind: 'volume', volumeId: 'data-1' } });
    const run = vi.spyOn(Executor.prototype, 'run');
    try {
      const unread = sqsRecord('c', message);
      delete (unread.attributes as { ApproximateReceiveCount?: string }).ApproximateReceiveCount;
      await handler({ Records: [sqsRecord('a', message, 3), sqsRecord('b', message, 0), unread] });
      expect(run.mock.calls[0]![0].map((item) => [item.messageId, item.receiveCount])).toEqual([
        ['a', 3],
        ['b', undefined],
        ['c', undefined],
      ]);
      expect(run.mock.calls[0]![0][1]).not.toHaveProperty('receiveCount');
      // Without the invocation's context (the local runtime), no time limit; with it, the time it has left.
      expect(run.mock.calls[0]![1]).toEqual({});
      await handler({ Records: [sqsRecord('d', message)] }, { getRemainingTimeInMillis: () => 42_000 });
      expect(run.mock.calls[1]![1]).toEqual({ remainingTimeMs: 42_000 });
    } finally {
      run.mockRestore();
    }
  });

  it('reconciler: a pass whose leak check did not judge every owned volume is not complete, though it scanned every segment', async () => {
    const { deps } = await inMemoryAwsWithVolume();
    const run = vi.spyOn(Reconciler.prototype, 'run').mockResolvedValue({ scanned: 1, invalid: 0, requeued: [], leaked: [], segments: { done: 8, total: 8 }, leakCheckComplete: false });
    try {
      expect(await createReconcilerHandler(deps)()).toMatchObject({ complete: false, segmentsDone: 8, segmentsTotal: 8, leakCheckComplete: false });
    } finally {
      run.mockRestore();
    }
  });

  it('watcher: enqueues the create for a new volume and reports stream failures by sequence number', async () => {
    const clock = new FakeClock(Date.parse(at));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const metrics = new RecordingMetrics();
    const log = new RecordingLog();
    await store.create(volume);
    const handler = createWatcherHandler({ store, queue, clock, metrics, log });
    const ok = await handler({ Records: [streamRecord('100', toItem(volume)), streamRecord('101', undefined, { pk: 'X', sk: 'Y' })] });
    expect(ok).toEqual({ batchItemFailures: [] });
    expect(queue.pending().map((p) => p.message.op)).toEqual(['create-volume']);
    expect(metrics.counter('InvalidRecords')).toBe(1);

    queue.failNextSend(new Error('queue down'));
    const failed = await handler({ Records: [streamRecord('102', toItem(volume))] });
    expect(failed).toEqual({ batchItemFailures: [{ itemIdentifier: '102' }] });
  });

  it('watcher: a table item whose key names no volume or attachment is logged with that key, the only way to find it in the table', async () => {
    const { deps } = await inMemoryAwsWithVolume();
    const handler = createWatcherHandler(deps);
    expect(await handler({ Records: [streamRecord('100', { pk: 'VOLUME#v1', sk: 'SNAPSHOT', note: 'x' }, { pk: 'VOLUME#v1', sk: 'SNAPSHOT' })] })).toEqual({ batchItemFailures: [] });
    expect(deps.log.entries).toContainEqual({
      level: 'warn',
      message: 'stream record names no volume or attachment; skipped',
      attributes: { eventID: 'e-100', keys: { pk: 'VOLUME#v1', sk: 'SNAPSHOT' } },
    });
  });

  it('watcher: the removal of a table item whose key names no record, as the InvalidRecords runbook asks, counts no invalid record', async () => {
    const { deps } = await inMemoryAwsWithVolume();
    const handler = createWatcherHandler(deps);
    const removal: DynamoDBRecord = { ...streamRecord('100', undefined, { pk: 'VOLUME#v1', sk: 'SNAPSHOT' }), eventName: 'REMOVE' };
    removal.dynamodb!.OldImage = marshall({ pk: 'VOLUME#v1', sk: 'SNAPSHOT', note: 'x' }) as never;
    expect(await handler({ Records: [removal] })).toEqual({ batchItemFailures: [] });
    expect(deps.metrics.counter('InvalidRecords')).toBe(0);
    expect(deps.log.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });

  it("watcher: a record whose handling fails has each of its changes reported, by sequence number, and no other record's", async () => {
    const { store, deps } = await inMemoryAwsWithVolume();
    const other: VolumeRecord = { ...volume, volumeId: 'data-2' };
    await store.create(other);
    const handler = createWatcherHandler(deps);
    const otherKeys = itemKey({ kind: 'volume', volumeId: 'data-2' });
    // data-1's two changes come around data-2's; data-1 is read first, and that read fails.
    store.failNext('get', new Error('table unavailable'));
    const response = await handler({ Records: [streamRecord('100', toItem(volume)), streamRecord('200', toItem(other), otherKeys), streamRecord('300', toItem(volume))] });
    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: '100' }, { itemIdentifier: '300' }] });
    expect(deps.queue.pending().map((p) => p.message.key)).toEqual([{ kind: 'volume', volumeId: 'data-2' }]);
  });

  it('watcher: a record written by hand with a number beyond what JavaScript holds exactly is rejected, not the whole batch', async () => {
    const clock = new FakeClock(Date.parse(at));
    const store = new MemoryRecordStore();
    const queue = new MemoryOperationQueue({ clock });
    const handler = createWatcherHandler({ store, queue, clock, metrics: new RecordingMetrics(), log: new RecordingLog() });
    const huge: VolumeRecord = { ...volume, volumeId: 'huge', spec: { ...volume.spec, sizeGiB: Number('12345678901234567890.5') } };
    await store.create(volume);
    store.putRaw(huge); // written straight into the table: the store itself writes no such number
    const hugeImage = marshall(toItem(volume), { removeUndefinedValues: true });
    hugeImage.pk = { S: 'VOLUME#huge' };
    hugeImage.spec = { M: { ...hugeImage.spec!.M!, sizeGiB: { N: '12345678901234567890.5' } } };
    const hugeRecord: DynamoDBRecord = {
      eventID: 'e-200',
      eventName: 'INSERT',
      dynamodb: { SequenceNumber: '200', Keys: marshall(itemKey({ kind: 'volume', volumeId: 'huge' })) as never, NewImage: hugeImage as never },
    };
    const response = await handler({ Records: [hugeRecord, streamRecord('201', toItem(volume))] });
    expect(response).toEqual({ batchItemFailures: [] });
    expect(queue.pending().map((p) => p.message.key)).toEqual([{ kind: 'volume', volumeId: 'data-1' }]);
    const rejected = (await store.get({ kind: 'volume', volumeId: 'huge' }))!;
    expect(rejected.status).toMatchObject({ state: 'error', code: 'InvalidRecord', message: expect.stringContaining('spec.sizeGiB') });
  });

  it('executor: runs valid messages as one batch and drops bodies that are not operations', async () => {
    const { store, provider, log, handler } = await executorOverVolume();
    const message = JSON.stringify({ op: 'create-volume', key: { kind: 'volume', volumeId: 'data-1' } });
    const run = vi.spyOn(Executor.prototype, 'run');
    let response: Awaited<ReturnType<typeof handler>>;
    try {
      response = await handler({ Records: [sqsRecord('a', message), sqsRecord('b', message), sqsRecord('c', '{"op":"format-disk"}')] });
      // One run for the batch, so its EC2 calls are grouped: not one per message.
      expect(run).toHaveBeenCalledTimes(1);
      expect(run.mock.calls[0]![0].map((item) => item.messageId)).toEqual(['a', 'b']);
    } finally {
      run.mockRestore();
    }
    expect(response).toEqual({ batchItemFailures: [] });
    expect(provider.calls.CreateVolume).toBe(1);
    expect(log.entries.some((e) => e.level === 'error' && e.message.includes('not an operation') && e.attributes?.messageId === 'c')).toBe(true);

    store.failNext('getMany', new Error('table unavailable'));
    const retried = await handler({ Records: [sqsRecord('d', message)] });
    expect(retried).toEqual({ batchItemFailures: [{ itemIdentifier: 'd' }] });
  });

  it('executor: a table or queue error fails just the affected messages, as batch item failures without an invocation error, each logged at ERROR as the README\'s DeadLetters runbook says', async () => {
    const { store, log, handler } = await executorOverVolume();
    await store.create({ ...volume, volumeId: 'data-2' });
    const create = (volumeId: string) => JSON.stringify({ op: 'create-volume', key: { kind: 'volume', volumeId } });
    store.failNext('update', new Error('ProvisionedThroughputExceededException'));
    // Resolves (no invocation error, so no ExecutorErrors): only the message whose write failed is retried.
    const response = await handler({ Records: [sqsRecord('a', create('data-1')), sqsRecord('b', create('data-2'))] });
    // The first write, data-1's, failed: its message is reported back, data-2's is done with.
    const states = await Promise.all(['data-1', 'data-2'].map(async (volumeId) => (await store.get({ kind: 'volume', volumeId }))!.status.state));
    expect(states).toEqual(['pending', 'creating']);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'a' }]);
    expect(log.entries.filter((e) => e.level === 'error').map((e) => e.message)).toEqual(['status write before the EC2 call failed']);

    // The runbook names every ERROR line the executor writes when it reports a message back.
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const runbook = readme.split('\n').find((line) => line.startsWith('| `DeadLetters` |'))!;
    expect(runbook).toMatch(/batch item/);
    // The executor's sources: lib/engine/executor.ts and the modules it is made of.
    const engine = new URL('../../lib/engine/', import.meta.url);
    const modules = ['execution/', 'operations/'].flatMap((dir) => readdirSync(new URL(dir, engine)).map((file) => dir + file));
    const source = ['executor.ts', ...modules].map((file) => readFileSync(new URL(file, engine), 'utf8')).join('\n');
    // A record whose decision throws is left as it is, its message not reported back.
    const reportedBack = [...source.matchAll(/log\.error\('([^']+)'/g)].map((match) => match[1]!).filter((message) => message !== 'deciding a result failed');
    expect(reportedBack).toContain('status write before the EC2 call failed');
    for (const message of reportedBack) expect(runbook, message).toContain(`\`${message}\``);
  });

  it("reconciler: bounds the pass by the invocation's remaining time, and logs whether it was complete", async () => {
    const { log, deps } = await inMemoryAwsWithVolume();
    const handler = createReconcilerHandler(deps);
    const reconciled = () => log.entries.filter((entry) => entry.message === 'reconciled').at(-1)?.attributes;

    await handler({}, { getRemainingTimeInMillis: () => RECONCILER.timeoutSeconds * 1000 });
    expect(reconciled()).toEqual({ scanned: 1, invalid: 0, requeued: 0, leaked: 0, complete: true, segmentsDone: 8, segmentsTotal: 8, leakCheckComplete: true });
    // Less time left than the pass keeps for its leak check and report: it scans nothing, and says so.
    await handler({}, { getRemainingTimeInMillis: () => SCAN_RESERVE_MS - 1 });
    expect(reconciled()).toEqual({ scanned: 0, invalid: 0, requeued: 0, leaked: 0, complete: false, segmentsDone: 0, segmentsTotal: 8, leakCheckComplete: true });
    expect(log.entries).toContainEqual(expect.objectContaining({ level: 'warn', message: 'reconciler pass ran out of time; the next passes take up the rest' }));
    // Without a context (the local runtime), no limit.
    await handler();
    expect(reconciled()).toMatchObject({ scanned: 1, complete: true });
  });

  it("reconciler: returns the pass's counts, not its records, and rotates segments by the scheduled event's time", async () => {
    const { log, deps } = await inMemoryAwsWithVolume();
    const run = vi.spyOn(Reconciler.prototype, 'run');
    try {
      const handler = createReconcilerHandler(deps);
      const result = await handler({ 'detail-type': 'Scheduled Event', time: '2026-11-26T01:05:00Z' }, { getRemainingTimeInMillis: () => 240_000 });
      expect(result).toEqual(log.entries.filter((entry) => entry.message === 'reconciled').at(-1)?.attributes);
      expect(run).toHaveBeenLastCalledWith({ remainingTimeMs: 240_000, scheduledAt: Date.parse('2026-11-26T01:05:00Z') });
      // An event without a readable time: the clock decides.
      await handler({ time: 'soon' });
      expect(run).toHaveBeenLastCalledWith({});
    } finally {
      run.mockRestore();
    }
  });

  it('reads the function environment and rejects a bad one', () => {
    const env = readFunctionEnvironment({ ...BASE_ENV, OWNER_TAG_VALUE: 'stack', EC2_RATE_BUDGET: '2' });
    expect(env).toMatchObject({ tableName: 't', queueUrl: 'q', ownerTagValue: 'stack', metricsNamespace: 'EbsProvisioner/s' });
    expect(env.engineConfig.rateBudgets?.AttachVolume).toEqual({ ratePerSecond: 2, burst: 8 });
    expect(env.rateBudgetTableName).toBeUndefined();
    expect(env.engineConfig.accountRateBudgets).toBeUndefined();
    const raised = readFunctionEnvironment({ ...BASE_ENV, EC2_REFILL_PER_SECOND: '20' }).engineConfig.accountRateBudgets;
    expect(raised?.AttachVolume).toEqual({ ...DEFAULT_ENGINE_CONFIG.accountRateBudgets.AttachVolume, ratePerSecond: 20 });
    expect(raised?.CreateTags).toEqual(DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateTags);
    expect(raised?.CreateVolume.ratePerSecond).toBe(20);
    expect(() => readFunctionEnvironment({ ...BASE_ENV, EC2_REFILL_PER_SECOND: '-1' })).toThrow(/EC2_REFILL_PER_SECOND must be a positive number/);
    expect(readFunctionEnvironment({ ...BASE_ENV, RATE_BUDGET_TABLE_NAME: 'rates' }).rateBudgetTableName).toBe('rates');
    expect(() => readFunctionEnvironment({ TABLE_NAME: 't', OWNER_TAG_VALUE: 's', POWERTOOLS_METRICS_NAMESPACE: 'EbsProvisioner/s' })).toThrow('QUEUE_URL is not set');
    // Without its deployment's namespace a function's metrics would reach no alarm of its own.
    expect(() => readFunctionEnvironment({ TABLE_NAME: 't', QUEUE_URL: 'q', OWNER_TAG_VALUE: 's' })).toThrow('POWERTOOLS_METRICS_NAMESPACE is not set');
    expect(() => readFunctionEnvironment({ ...BASE_ENV, EC2_RATE_BUDGET: 'fast' })).toThrow(/positive number/);
  });

  it("reconciler: RECONCILER_SCAN_SEGMENTS, only when given, sets the table's segments; the engine's default otherwise", () => {
    expect(readFunctionEnvironment({ ...BASE_ENV, RECONCILER_SCAN_SEGMENTS: '32' }).engineConfig.reconcilerScanSegments).toBe(32);
    expect(resolveEngineConfig(readFunctionEnvironment(BASE_ENV).engineConfig).reconcilerScanSegments).toBe(DEFAULT_ENGINE_CONFIG.reconcilerScanSegments);
    expect(() => readFunctionEnvironment({ ...BASE_ENV, RECONCILER_SCAN_SEGMENTS: '0' })).toThrow(/RECONCILER_SCAN_SEGMENTS must be a positive integer/);
    // DynamoDB's limit on TotalSegments, 1 000 000, is taken; one more is not.
    expect(readFunctionEnvironment({ ...BASE_ENV, RECONCILER_SCAN_SEGMENTS: '1000000' }).engineConfig.reconcilerScanSegments).toBe(1_000_000);
    expect(() => readFunctionEnvironment({ ...BASE_ENV, RECONCILER_SCAN_SEGMENTS: '1000001' })).toThrow(/RECONCILER_SCAN_SEGMENTS must be at most 1000000 \(DynamoDB's limit\), got 1000001/);
  });

  it('executor: its concurrency and EC2\'s refill give each environment its share of EC2\'s buckets; EC2_RATE_BUDGET, only when given, one rate for all', () => {
    const env = readFunctionEnvironment({ ...BASE_ENV, EXECUTOR_MAX_CONCURRENCY: '10', EC2_REFILL_PER_SECOND: '20' });
    expect(env.engineConfig.concurrentEnvironments).toBe(10);
    const buckets = { ...EC2_REQUEST_BUCKETS, CreateVolume: { burst: 100, ratePerSecond: 20 }, AttachVolume: { burst: 50, ratePerSecond: 20 }, DeleteVolume: { burst: 100, ratePerSecond: 20 } };
    expect(env.engineConfig.rateBudgets).toEqual(environmentRateBudgets(10, buckets));
    // CreateTags keeps its own pace (10 a second) and burst, shared by ten.
    expect(env.engineConfig.rateBudgets?.CreateTags).toEqual({ burst: 10, ratePerSecond: 1 });
    expect(env.engineConfig.rateBudgets?.AttachVolume).toEqual({ burst: 5, ratePerSecond: 2 });
    // The default deployment's executor: the engine's own defaults.
    const standard = resolveEngineConfig(readFunctionEnvironment({ ...BASE_ENV, EXECUTOR_MAX_CONCURRENCY: '5', EC2_REFILL_PER_SECOND: '5' }).engineConfig);
    expect(standard.rateBudgets).toEqual(DEFAULT_ENGINE_CONFIG.rateBudgets);
    expect(standard.concurrentEnvironments).toBe(DEFAULT_ENGINE_CONFIG.concurrentEnvironments);
    expect(readFunctionEnvironment(BASE_ENV).engineConfig.rateBudgets).toBeUndefined();
    const given = readFunctionEnvironment({ ...BASE_ENV, EXECUTOR_MAX_CONCURRENCY: '10', EC2_RATE_BUDGET: '0.5' }).engineConfig;
    expect(given.concurrentEnvironments).toBe(10);
    expect(given.rateBudgets?.CreateTags).toEqual({ ratePerSecond: 0.5, burst: 2 });
    expect(() => readFunctionEnvironment({ ...BASE_ENV, EXECUTOR_MAX_CONCURRENCY: '2.5' })).toThrow(/EXECUTOR_MAX_CONCURRENCY must be a positive integer/);
  });

  it('reads the rate budget settings alone for the API, which needs no queue', () => {
    expect(readRateBudgetEnvironment({})).toEqual({});
    const settings = readRateBudgetEnvironment({ RATE_BUDGET_TABLE_NAME: 'rates', EC2_REFILL_PER_SECOND: '20' });
    expect(settings.rateBudgetTableName).toBe('rates');
    expect(settings.accountRateBudgets?.DeleteVolume).toEqual({ ...DEFAULT_ENGINE_CONFIG.accountRateBudgets.DeleteVolume, ratePerSecond: 20 });
    expect(() => readRateBudgetEnvironment({ EC2_REFILL_PER_SECOND: '0' })).toThrow(/EC2_REFILL_PER_SECOND must be a positive number/);
  });

  it('writes each engine log line at its own level through Powertools, with its attributes', () => {
    const lines: Record<string, unknown>[] = [];
    vi.stubEnv('POWERTOOLS_DEV', 'true');
    const spies = (['debug', 'info', 'warn', 'error'] as const).map((method) =>
      vi.spyOn(console, method).mockImplementation((line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>)),
    );
    try {
      const log = powertoolsLog(new Logger({ serviceName: 'executor', logLevel: 'DEBUG' }));
      log.debug('d', { n: 1 });
      log.info('i');
      log.warn('w', { n: 3 });
      log.error('e', { n: 4 });
    } finally {
      for (const spy of spies) spy.mockRestore();
      vi.unstubAllEnvs();
    }
    expect(lines.map((line) => [line.level, line.message, line.n])).toEqual([
      ['DEBUG', 'd', 1],
      ['INFO', 'i', undefined],
      ['WARN', 'w', 3],
      ['ERROR', 'e', 4],
    ]);
  });

  it("executor through Powertools: a failed describe's log line keeps EC2's message (Powertools drops an attribute named message)", async () => {
    const { deps, provider } = await inMemoryAwsWithVolume();
    const lines: string[] = [];
    // Powertools logs through the global console in dev mode, where the test reads it.
    vi.stubEnv('POWERTOOLS_DEV', 'true');
    const warn = vi.spyOn(console, 'warn').mockImplementation((line: string) => void lines.push(line));
    try {
      const handler = createExecutorHandler({ ...deps, log: powertoolsLog(new Logger({ serviceName: 'executor', logLevel: 'WARN' })) });
      const message = (op: string) => JSON.stringify({ op, key: { kind: 'volume', volumeId: 'data-1' } });
      await handler({ Records: [sqsRecord('a', message('create-volume'))] });
      deps.clock.advance(60_000);
      provider.failNext('DescribeVolumes', new ProviderError('throttled', 'RequestLimitExceeded', 'Request limit exceeded.'));
      await handler({ Records: [sqsRecord('b', message('check-volume'))] });
    } finally {
      warn.mockRestore();
      vi.unstubAllEnvs();
    }
    const logged = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged.find((line) => line.message === 'describe failed')).toMatchObject({ code: 'RequestLimitExceeded', error: 'Request limit exceeded.' });
    expect(logged.filter((line) => String(line.message).includes('reserved key'))).toEqual([]);
  });

  it('the log keys the engine never uses are those Powertools drops, and the tests\' log refuses them', () => {
    const lines: string[] = [];
    vi.stubEnv('POWERTOOLS_DEV', 'true');
    const warn = vi.spyOn(console, 'warn').mockImplementation((line: string) => void lines.push(line));
    const info = vi.spyOn(console, 'info').mockImplementation(() => undefined);
    try {
      const log = powertoolsLog(new Logger({ serviceName: 'executor', logLevel: 'INFO' }));
      for (const key of [...RESERVED_LOG_KEYS, 'error', 'key']) log.info('line', { [key]: 'x' });
    } finally {
      warn.mockRestore();
      info.mockRestore();
      vi.unstubAllEnvs();
    }
    const dropped = lines.map((line) => /The key "(\w+)" is a reserved key/.exec(String((JSON.parse(line) as { message: unknown }).message))?.[1]);
    expect(dropped).toEqual([...RESERVED_LOG_KEYS]);
    for (const key of RESERVED_LOG_KEYS) expect(() => new RecordingLog().warn('line', { [key]: 'x' })).toThrow(/which the deployed logger drops/);
    expect(() => new RecordingLog().warn('line', { error: 'x' })).not.toThrow();
  });

  it('tags every log line of a scheduled run with the event id as correlation id', async () => {
    const logger = new Logger({ serviceName: 'test', logLevel: 'SILENT' });
    let seen: unknown;
    const handler = middy<{ id: string }>(async () => {
      seen = logger.getCorrelationId();
    }).use(correlateLogs<{ id: string }>(logger, (event) => event.id));
    await handler({ id: 'b9d5f6a0-run' }, {} as Context);
    expect(seen).toBe('b9d5f6a0-run');
  });
});
