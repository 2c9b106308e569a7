/**
 * The figures of lib/settings.ts that README.md, docs/api.md and BENCHMARKS.md state, and the AWS
 * limits their doc comments name, as the settings hold them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API, EXECUTOR, metricsNamespace, OWNERSHIP_TAGS, QUEUE, RECONCILER, TABLE, WATCHER } from '../../lib/settings.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');
const readme = read('README.md');
const apiGuide = read('docs/api.md');
const benchmarks = read('BENCHMARKS.md');

/** SQS's longest message retention (14 days) and longest per-message delay (15 minutes), as AWS states them. */
const SQS_MAX_RETENTION_SECONDS = 1_209_600;
const SQS_MAX_DELAY_SECONDS = 900;
/** DynamoDB's largest item, 400 KB, in the binary units AWS states DynamoDB's sizes in (1 KB = 1024 bytes). */
const DYNAMODB_MAX_ITEM_BYTES = 400 * 1024;

describe('API settings as docs/api.md states them', () => {
  it('refuses a body over 256 KiB', () => {
    expect(apiGuide).toContain('the body is over 256 KiB');
    expect(API.maxBodyBytes).toBe(256 * 1024);
  });

  it('gives the api function 10 s', () => {
    expect(apiGuide).toContain('ran out of its time (10 s, `API.timeoutSeconds`');
    expect(API.timeoutSeconds).toBe(10);
  });

  it('throttles each method at 50 requests a second with bursts of 100', () => {
    expect(apiGuide).toContain('at 50 requests a second with bursts of 100');
    expect(API.throttleRatePerSecond).toBe(50);
    expect(API.throttleBurst).toBe(100);
  });

  it("bounds an AWS call's three attempts within the function's time", () => {
    expect(3 * API.awsRequestTimeoutMs).toBeLessThan(API.timeoutSeconds * 1000);
  });
});

describe('queue, executor and reconciler settings as the README states them', () => {
  it('keeps a dead-lettered message 14 days, SQS\'s maximum, and an operation message 7', () => {
    expect(readme).toContain('keep a message 14 days (SQS\'s maximum; a dead-lettered message counts from when it was first sent), the operation queue 7');
    expect(QUEUE.deadLetterRetentionDays * 86_400).toBe(SQS_MAX_RETENTION_SECONDS);
    expect(QUEUE.retentionDays).toBe(7);
  });

  it("delays a message at most 900 s, SQS's maximum", () => {
    expect(readme).toContain('at most 900 s, as an SQS message\'s delay');
    expect(QUEUE.maxDelaySeconds).toBe(SQS_MAX_DELAY_SECONDS);
  });

  it('runs 5 executor invocations at once by default, each taking batches of 100 messages', () => {
    expect(readme).toContain('| `executorMaxConcurrency` | 5 |');
    expect(readme).toContain('(100 messages, one batch, per invocation)');
    expect(EXECUTOR.maxConcurrency).toBe(5);
    expect(EXECUTOR.batchSize).toBe(100);
  });

  it('runs a reconciler pass every 5 minutes, each of at most 240 s', () => {
    expect(readme).toContain('re-plans records whose work was lost on its next passes (every 5 minutes)');
    expect(readme).toContain('some 90 000 records in 240 s');
    expect(RECONCILER.intervalMinutes).toBe(5);
    expect(RECONCILER.timeoutSeconds).toBe(240);
  });
});

describe('table and mapping settings as AWS and BENCHMARKS.md state them', () => {
  it("holds DynamoDB's item limit in bytes, 400 KB of 1024 bytes", () => {
    expect(TABLE.maxItemBytes).toBe(DYNAMODB_MAX_ITEM_BYTES);
  });

  it('hands the watcher its table changes with no batching window, splitting a failed batch', () => {
    expect(benchmarks).toContain("the watcher's event source has no batching window");
    expect(WATCHER.maxBatchingWindowSeconds).toBe(0);
    expect(readme).toContain('stream batches in order with partial-failure retry, bisection');
    expect(WATCHER.bisectBatchOnError).toBe(true);
  });

  it('gathers operation messages for the executor for a batching window of 1 s', () => {
    expect(benchmarks).toContain('queue (1 s batching window)');
    expect(EXECUTOR.maxBatchingWindowSeconds).toBe(1);
  });
});

describe('names the README gives', () => {
  it('tags every volume with its owner and its record id under the keys the README names', () => {
    expect(readme).toContain('Value of the `ebs-provisioner:owner` tag put on every volume');
    expect(readme).toContain("carries its record's id as a tag (`ebs-provisioner:volume-id`)");
    expect(OWNERSHIP_TAGS).toEqual({ owner: 'ebs-provisioner:owner', record: 'ebs-provisioner:volume-id' });
  });

  it('puts a deployment\'s metrics in the namespace EbsProvisioner/<stackName>', () => {
    expect(readme).toContain('CloudWatch namespace `EbsProvisioner/<stackName>`');
    expect(metricsNamespace('Storage-1')).toBe('EbsProvisioner/Storage-1');
  });
});
