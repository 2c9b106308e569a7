/**
 * docs/state-machines.md: every status the system writes follows the two tables, but one. A record
 * written into the table in a final state (`deleted`, `detached`: the system removes a record that
 * reaches one, and never writes it) is not valid, and its rejection puts it in `error` (code
 * `InvalidRecord`) from there, a move no table lists: the document's introduction names it.
 */
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_TRANSITIONS, VOLUME_TRANSITIONS, stateMachinesMarkdown } from '../../lib/domain/state-machines.js';
import type { ProvisionerRecord } from '../../lib/domain/records.js';
import { attachmentKey, harness, newAttachment, newVolume, volumeKey } from './engine-fixtures.js';

function introduction(): string {
  const markdown = stateMachinesMarkdown();
  return markdown.slice(0, markdown.indexOf('## Volume')).replace(/\s+/g, ' ');
}

describe('a record written into the table in a final state', () => {
  it('is put in error by its rejection, from that final state, as the introduction says and no table row does', async () => {
    const h = harness();
    const updatedAt = new Date(h.clock.now()).toISOString();
    h.store.putRaw({ ...newVolume('data-1'), status: { state: 'deleted', attempts: 0, updatedAt } } as unknown as ProvisionerRecord);
    h.store.putRaw({ ...newAttachment('data-1'), status: { state: 'detached', attempts: 0, updatedAt } } as unknown as ProvisionerRecord);
    const moves: string[] = [];
    h.store.onChange((change) => {
      const before = (change.oldRecord as { status?: { state: string } } | undefined)?.status?.state;
      const after = (change.newRecord as { status?: { state: string; code?: string } } | undefined)?.status;
      if (before !== undefined && after !== undefined && before !== after.state) moves.push(`${change.key.kind} ${before} → ${after.state} ${after.code ?? ''}`.trim());
    });
    // The watcher's first look at the two writes; its rejections, valid records again, are then taken up as retries.
    await h.watcher.handle(h.changes.splice(0));

    expect(moves).toEqual(['volume deleted → error InvalidRecord', 'attachment detached → error InvalidRecord']);
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'InvalidRecord' } });
    expect(await h.store.get(attachmentKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'InvalidRecord' } });
    // Its rejection's own change brings it back: valid now, it is taken up as a retry.
    await h.watcher.handle(h.changes.splice(0));
    expect(moves.slice(2)).toEqual(['volume error → pending', 'attachment error → pending']);
    expect(VOLUME_TRANSITIONS.some((row) => row.from === 'deleted')).toBe(false);
    expect(ATTACHMENT_TRANSITIONS.some((row) => row.from === 'detached')).toBe(false);
    expect(introduction()).toMatch(/written into the table in a final state\b.*puts it in `error` \(code `InvalidRecord`\)/);
  });
});

describe('a record found not valid in any other state', () => {
  it('has a failed move to error from each state but error and the final ones, which its rejection takes', async () => {
    for (const [machine, rows, states] of [
      ['volume', VOLUME_TRANSITIONS, ['pending', 'creating', 'available', 'in-use', 'modifying', 'deleting']],
      ['attachment', ATTACHMENT_TRANSITIONS, ['pending', 'attaching', 'attached', 'detaching']],
    ] as const) {
      const failedFrom = (rows as readonly { from: string; event: string; to: string }[]).filter((row) => row.event === 'failed' && row.to === 'error').map((row) => row.from);
      expect(failedFrom.sort(), machine).toEqual([...states].sort());
    }
    expect(introduction()).toMatch(/found not valid .*goes to `error`, code `InvalidRecord`, by the `failed` move of its state/);

    // A volume being deleted, written into the table with a claim no executor took (a day long): rejected from there.
    const h = harness();
    const updatedAt = new Date(h.clock.now()).toISOString();
    h.store.putRaw({
      ...newVolume('data-1', { ebsVolumeId: 'vol-0123456789abcdef0', status: { state: 'deleting', attempts: 0, updatedAt }, claim: { owner: 'someone', expiresAt: h.clock.now() + 24 * 3_600_000 } }),
    });
    await h.watcher.handle(h.changes.splice(0));
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'InvalidRecord' } });
  });
});

describe('a record rejected as not valid and put right in the table', () => {
  it('is taken up by the retry move, whose row says so', async () => {
    const h = harness();
    h.store.putRaw({ ...newVolume('data-1'), claim: { owner: 'someone', expiresAt: h.clock.now() + 24 * 3_600_000 } });
    await h.watcher.handle(h.changes.splice(0));
    const rejected = await h.store.get(volumeKey('data-1'));
    expect(rejected).toMatchObject({ status: { state: 'error', code: 'InvalidRecord' } });
    // Its client removes the claim it had no business writing: the record, generation unchanged, is taken up.
    const { claim: _claim, ...putRight } = rejected!;
    h.store.putRaw(putRight as ProvisionerRecord);
    h.changes.splice(0, h.changes.length - 1);
    await h.watcher.handle(h.changes.splice(0));
    expect(await h.store.get(volumeKey('data-1'))).toMatchObject({ generation: 1, status: { state: 'pending', message: 'retry requested' } });
    for (const rows of [VOLUME_TRANSITIONS, ATTACHMENT_TRANSITIONS] as const) {
      const retry = (rows as readonly { from: string; event: string; why: string }[]).find((row) => row.from === 'error' && row.event === 'retry-requested');
      expect(retry?.why).toMatch(/put right in the table a record rejected as not valid/);
    }
  });
});
