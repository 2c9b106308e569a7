/** The mapping and queue settings the README and docs/local.md state, as lib/settings.ts holds them. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { QUEUE, WATCHER } from '../../lib/settings.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('settings as documented', () => {
  it("gives up on a batch of table changes after the README's retries and age", () => {
    expect(readme).toContain('(10 retries or 1 hour old)');
    expect(WATCHER.retryAttempts).toBe(10);
    expect(WATCHER.maxRecordAgeSeconds).toBe(3600);
  });

  it("dead-letters an operation message after the README's receives", () => {
    expect(readme).toContain('after 5 receives');
    expect(QUEUE.maxReceiveCount).toBe(5);
  });
});
