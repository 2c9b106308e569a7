import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, nextAttachmentState, nextVolumeState } from '../../lib/domain/state-machines.js';

function thrown(move: () => unknown): IllegalTransitionError {
  try {
    move();
  } catch (error) {
    if (error instanceof IllegalTransitionError) return error;
    throw error;
  }
  throw new Error('no error thrown');
}

describe('a move not legal in the current state', () => {
  it('names the volume, the state it was asked in and the event', () => {
    const error = thrown(() => nextVolumeState('deleting', 'create-started'));
    expect({ machine: error.machine, from: error.from, event: error.event }).toEqual({ machine: 'volume', from: 'deleting', event: 'create-started' });
    expect(error.message).toBe("illegal volume transition: event 'create-started' in state 'deleting'");
  });

  it('names the attachment, the state it was asked in and the event', () => {
    const error = thrown(() => nextAttachmentState('attached', 'attach-started'));
    expect({ machine: error.machine, from: error.from, event: error.event }).toEqual({ machine: 'attachment', from: 'attached', event: 'attach-started' });
    expect(error.message).toBe("illegal attachment transition: event 'attach-started' in state 'attached'");
  });
});
