import { describe, expect, it } from 'vitest';
import { resolveEngineConfig } from '../../lib/engine/config.js';
import { budgetSpent, givenUpOnceAlive } from '../../lib/engine/schedule.js';

const START = Date.parse('2026-01-01T00:00:00.000Z');
const config = resolveEngineConfig({ maxAttempts: 3 });

describe('a give-up message whose earlier text holds the dying phrasing', () => {
  it('turns only the reason that closes the message into the live phrasing', () => {
    const byAttempts = (triedAgain: boolean) => budgetSpent(3, START, START, config, triedAgain)!.message;
    // The failed step's own text (EC2's message, say) holds the same words; only the closing reason is the schedule's.
    const text = `request ${byAttempts(true)}, please wait`;
    expect(givenUpOnceAlive(`${text} (${byAttempts(true)})`)).toBe(`${text} (${byAttempts(false)})`);
  });

  it('does the same for a look at work not done in time', () => {
    const byAge = (triedAgain: boolean) => budgetSpent(0, START, START + config.maxOperationAgeMs, config, triedAgain)!.message;
    const text = `volume ${byAge(true)} at EC2's end, still going`;
    expect(givenUpOnceAlive(`${text}: ${byAge(true)}`)).toBe(`${text}: ${byAge(false)}`);
  });

  it('leaves a message whose only dying phrasing is not at its end as it is', () => {
    const byAttempts = budgetSpent(3, START, START, config, true)!.message;
    const byAge = budgetSpent(0, START, START + config.maxOperationAgeMs, config, true)!.message;
    expect(givenUpOnceAlive(`${byAttempts}; see the log`)).toBe(`${byAttempts}; see the log`);
    expect(givenUpOnceAlive(`${byAge}; see the log`)).toBe(`${byAge}; see the log`);
  });
});
