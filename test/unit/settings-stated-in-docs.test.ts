/**
 * The figures of lib/settings.ts that README.md and docs/api.md state, and the AWS limits their doc
 * comments name, as the settings hold them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API, EXECUTOR, QUEUE, RECONCILER } from '../../lib/settings.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8').replace(/\s+/g, ' ');
const readme = read('README.md');
const apiGuide = read('docs/api.md');

/** SQS's longest message retention (14 days) and longest per-message delay (15 minutes), as AWS states them. */
const SQS_MAX_RETENTION_SECONDS = 1_209_600;
const SQS_MAX_DELAY_SECONDS = 900;

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
