import { describe, expect, it } from 'vitest';
import { ATTACHMENT_TRANSITIONS, VOLUME_TRANSITIONS, stateMachinesMarkdown } from '../../lib/domain/state-machines.js';

/**
 * docs/state-machines.md says when `error` ends: a client's retry, a record marked dying (whose
 * removal the system then carries out), and any move the system makes by itself, each named.
 */
const CLIENT_RETRY = 'retry-requested';
/** The moves of a record marked dying out of `error`: its removal, which the client asked for. */
const REMOVAL = new Set(['create-started', 'delete-started', 'removed-uncreated', 'detach-started', 'removed-unattached']);

function introduction(): string {
  const markdown = stateMachinesMarkdown();
  return markdown.slice(0, markdown.indexOf('## Volume')).replace(/\s+/g, ' ');
}

describe('the state machines document on leaving error', () => {
  const rows = [
    ...VOLUME_TRANSITIONS.map((row) => ({ machine: 'volume', ...row })),
    ...ATTACHMENT_TRANSITIONS.map((row) => ({ machine: 'attachment', ...row })),
  ].filter((row) => row.from === 'error' && row.to !== 'error');

  it('names, in its introduction, every move out of error the system makes without a retry or a removal', () => {
    const bySystem = rows.filter((row) => row.event !== CLIENT_RETRY && !REMOVAL.has(row.event));
    expect(bySystem.map((row) => `${row.machine} ${row.event}`)).toEqual(['attachment observed-attached']);
    for (const row of bySystem) expect(introduction()).toContain(`\`${row.event}\``);
  });

  it('says a retry and a removal end it', () => {
    expect(rows.some((row) => row.event === CLIENT_RETRY)).toBe(true);
    expect(introduction()).toMatch(/`error` is terminal until the client retries or marks the record dying/);
  });
});
