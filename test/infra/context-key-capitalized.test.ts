/** A misspelt option given with a capital first letter is a plain key like any other: refused, not ignored. */
import { describe, expect, it } from 'vitest';
import { checkContextKeys } from '../../infra/config.js';

describe('context keys starting with a capital letter', () => {
  it('are refused when no option has that name (-c AlarmEmail=… would otherwise deploy without an alarm email)', () => {
    expect(() => checkContextKeys(['AlarmEmail'])).toThrow(/^unknown context option "AlarmEmail": the options are /);
    expect(() => checkContextKeys(['StackName'])).toThrow(/^unknown context option "StackName"/);
  });
});
