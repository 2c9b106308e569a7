/**
 * A dying volume with no attachment records left whose modification or creation EC2 has under way
 * keeps its progress checks, and says only what it waits for: no attachments are counted.
 */
import { describe, expect, it } from 'vitest';
import { planVolume } from '../../lib/engine/planner.js';
import { T, created, volume } from './planner-fixtures.js';

const NOW = Date.parse(T);

describe('planner: a dying volume with no attachments and EC2 still at work on it', () => {
  it('checks on a modification under way, naming no attachments', () => {
    expect(planVolume(volume('modifying', { ...created, life: 'dying' }), [], NOW)).toEqual({
      type: 'operation',
      op: 'check-volume',
      reason: 'waiting for the modification before deleting',
    });
  });

  it('checks on a creation under way, naming no attachments', () => {
    expect(planVolume(volume('creating', { ...created, life: 'dying' }), [], NOW)).toEqual({
      type: 'operation',
      op: 'check-volume',
      reason: 'waiting for creation to finish before deleting',
    });
  });
});
