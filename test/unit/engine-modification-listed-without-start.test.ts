import { describe, expect, it } from 'vitest';
import { learntModificationStart } from '../../lib/engine/modification-window.js';

const NOW = Date.parse('2026-01-02T00:00:00.000Z');

describe('a modification EC2 lists without its start time', () => {
  it('teaches a record that knows no start nothing: there is no start to count from', () => {
    expect(learntModificationStart({}, { state: 'modifying' }, NOW)).toBeUndefined();
    expect(learntModificationStart({}, { state: 'completed' }, NOW)).toBeUndefined();
  });
});
