import { describe, expect, it } from 'vitest';
import { parseOperationMessage } from '../../lib/aws/sqs-queue.js';

/** `dueAt` is a time in whole epoch milliseconds (lib/engine/ports.ts), as `tokenAt` is. */
describe('an operation message whose due time is not a whole number of milliseconds', () => {
  it('is refused, naming dueAt, as a fractional tokenAt is', () => {
    const parsed = parseOperationMessage('{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"dueAt":1700000000000.5}');
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toMatch(/dueAt/);
  });

  it('is taken when it is whole', () => {
    expect(parseOperationMessage('{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"dueAt":1700000000001}')).toEqual({
      ok: true,
      message: { op: 'attach', key: { kind: 'volume', volumeId: 'v1' }, dueAt: 1_700_000_000_001 },
    });
  });
});
