import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ATTACHMENT_EVENTS,
  ATTACHMENT_TRANSITIONS,
  IllegalTransitionError,
  VOLUME_EVENTS,
  VOLUME_TRANSITIONS,
  canAttachment,
  canVolume,
  nextAttachmentState,
  nextVolumeState,
  stateMachinesMarkdown,
  toMermaid,
} from '../../lib/domain/state-machines.js';
import { ATTACHMENT_STATES, VOLUME_STATES } from '../../lib/domain/records.js';

describe('volume state machine', () => {
  it.each(VOLUME_TRANSITIONS.map((row) => [row.from, row.event, row.to] as const))(
    '%s --%s--> %s',
    (from, event, to) => {
      expect(nextVolumeState(from, event)).toBe(to);
    },
  );

  it('refuses every pair the table does not list', () => {
    const legal = new Set(VOLUME_TRANSITIONS.map((row) => `${row.from}|${row.event}`));
    let refused = 0;
    for (const state of VOLUME_STATES)
      for (const event of VOLUME_EVENTS) {
        if (legal.has(`${state}|${event}`)) continue;
        expect(() => nextVolumeState(state, event)).toThrow(IllegalTransitionError);
        refused++;
      }
    expect(refused).toBe(VOLUME_STATES.length * VOLUME_EVENTS.length - legal.size);
  });

  it('names the state and event when it refuses', () => {
    expect(() => nextVolumeState('deleted', 'create-started')).toThrow(
      "illegal volume transition: event 'create-started' in state 'deleted'",
    );
  });

  it('reaches every state and uses every event', () => {
    const reached = new Set(['pending', ...VOLUME_TRANSITIONS.map((row) => row.to)]);
    expect([...VOLUME_STATES].filter((state) => !reached.has(state))).toEqual([]);
    const used = new Set(VOLUME_TRANSITIONS.map((row) => row.event));
    expect([...VOLUME_EVENTS].filter((event) => !used.has(event))).toEqual([]);
  });
});

describe('attachment state machine', () => {
  it.each(ATTACHMENT_TRANSITIONS.map((row) => [row.from, row.event, row.to] as const))(
    '%s --%s--> %s',
    (from, event, to) => {
      expect(nextAttachmentState(from, event)).toBe(to);
    },
  );

  it('refuses every pair the table does not list', () => {
    const legal = new Set(ATTACHMENT_TRANSITIONS.map((row) => `${row.from}|${row.event}`));
    for (const state of ATTACHMENT_STATES)
      for (const event of ATTACHMENT_EVENTS) {
        if (legal.has(`${state}|${event}`)) continue;
        expect(() => nextAttachmentState(state, event)).toThrow(IllegalTransitionError);
      }
    expect(() => nextAttachmentState('detached', 'attach-started')).toThrow(/attachment transition/);
  });

  it('a retry takes an attachment from error back to pending, and from nowhere else', () => {
    expect(nextAttachmentState('error', 'retry-requested')).toBe('pending');
    for (const state of ATTACHMENT_STATES.filter((s) => s !== 'error'))
      expect(() => nextAttachmentState(state, 'retry-requested')).toThrow(IllegalTransitionError);
  });

  it('reaches every state and uses every event', () => {
    const reached = new Set(['pending', ...ATTACHMENT_TRANSITIONS.map((row) => row.to)]);
    expect([...ATTACHMENT_STATES].filter((state) => !reached.has(state))).toEqual([]);
    const used = new Set(ATTACHMENT_TRANSITIONS.map((row) => row.event));
    expect([...ATTACHMENT_EVENTS].filter((event) => !used.has(event))).toEqual([]);
  });
});

describe('canVolume and canAttachment', () => {
  it('say an event is legal exactly where the table lists it', () => {
    const volumeLegal = new Set(VOLUME_TRANSITIONS.map((row) => `${row.from}|${row.event}`));
    for (const state of VOLUME_STATES)
      for (const event of VOLUME_EVENTS) expect(canVolume(state, event), `${state}|${event}`).toBe(volumeLegal.has(`${state}|${event}`));
    const attachmentLegal = new Set(ATTACHMENT_TRANSITIONS.map((row) => `${row.from}|${row.event}`));
    for (const state of ATTACHMENT_STATES)
      for (const event of ATTACHMENT_EVENTS) expect(canAttachment(state, event), `${state}|${event}`).toBe(attachmentLegal.has(`${state}|${event}`));
    expect(canVolume('deleted', 'create-started')).toBe(false);
    expect(canAttachment('detached', 'attach-started')).toBe(false);
  });
});

describe('state machine docs', () => {
  it('draws every row as a mermaid edge', () => {
    const volume = toMermaid('volume');
    for (const row of VOLUME_TRANSITIONS)
      expect(volume).toContain(`${row.from.replace('-', '_')} --> ${row.to.replace('-', '_')}: ${row.event}`);
    const attachment = toMermaid('attachment');
    for (const row of ATTACHMENT_TRANSITIONS) expect(attachment).toContain(`${row.from} --> ${row.to}: ${row.event}`);
  });

  it('docs/state-machines.md matches the tables (run `npm run docs` to regenerate)', () => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'state-machines.md'), 'utf8');
    expect(onDisk).toBe(stateMachinesMarkdown());
  });
});
