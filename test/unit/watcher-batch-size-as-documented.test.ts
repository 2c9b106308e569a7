/** The number of table changes the watcher gets per call, as docs/local.md states it and lib/settings.ts holds it (the stack's mapping and the local stream poller read it). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { WATCHER } from '../../lib/settings.js';

const local = readFileSync(new URL('../../docs/local.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe("the watcher's batch size as documented", () => {
  it('is the number docs/local.md gives for the stream mapping', () => {
    const stated = /\*\*Stream poller\*\* \(watcher; `WATCHER`\): records in stream order, up to `batchSize` \((\d+)\) per call/.exec(local);
    expect(stated?.[1]).toBeDefined();
    expect(Number(stated![1])).toBe(WATCHER.batchSize);
  });
});
