import { describe, expect, it } from 'vitest';
import { parseOperationMessage } from '../../lib/aws/sqs-queue.js';

describe('an operation message whose token time lies before the epoch', () => {
  it('is refused, naming tokenAt, as a negative dueAt is', () => {
    const parsed = parseOperationMessage('{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"tokenAt":-1}');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toMatch(/tokenAt/);
  });

  it('is taken at zero, the epoch itself', () => {
    expect(parseOperationMessage('{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"tokenAt":0}')).toEqual({
      ok: true,
      message: { op: 'attach', key: { kind: 'volume', volumeId: 'v1' }, tokenAt: 0 },
    });
  });
});
