/**
 * The engine's defaults as README.md (Configuration, Forced detach, How it works) and
 * docs/state-machines.md give them in words: each figure here is one a document states.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_ENGINE_CONFIG as config } from '../../lib/engine/config.js';
import { backoffDelaySeconds, throttleDelaySeconds } from '../../lib/engine/schedule.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

describe('the engine defaults the documents state', () => {
  it('a claim lease of 3 minutes', () => {
    expect(config.claimLeaseMs).toBe(3 * MINUTE);
  });

  it('8 failed attempts, or 6 hours since the operation started, before a terminal error', () => {
    expect(config.maxAttempts).toBe(8);
    expect(config.maxOperationAgeMs).toBe(6 * HOUR);
  });

  it('a failure backoff whose ceiling is 2 s after the first failed attempt, doubling, at most 900 s (15 minutes, the longest backoff)', () => {
    expect(config.backoff).toEqual({ baseSeconds: 2, capSeconds: 900 });
    expect(backoffDelaySeconds(1, config, () => 0.999999)).toBe(2);
    expect(backoffDelaySeconds(2, config, () => 0.999999)).toBe(4);
    expect(backoffDelaySeconds(100, config, () => 0.999999)).toBe(15 * 60);
  });

  it('a throttling backoff of 2 to 20 s', () => {
    expect(config.throttleBackoff).toEqual({ minSeconds: 2, maxSeconds: 20 });
    expect(throttleDelaySeconds(config, () => 0)).toBe(2);
    expect(throttleDelaySeconds(config, () => 0.999999)).toBe(20);
  });

  it('a snapshot wait from 2 s to 15 minutes, half the time waited so far', () => {
    expect(config.snapshotWait).toEqual({ firstSeconds: 2, growth: 0.5, maxSeconds: 15 * 60 });
  });

  it('tokens taken up to an hour ahead, and an invocation waiting up to 10 s for one', () => {
    expect(config.tokenReservationHorizonMs).toBe(HOUR);
    expect(config.rateWaitMaxMs).toBe(10 * SECOND);
  });

  it('a second look two minutes on at what a describe may lag (describeGraceMs)', () => {
    expect(config.describeGraceMs).toBe(2 * MINUTE);
  });

  it('an instance an executor environment described reused for an hour (instanceCacheTtlMs)', () => {
    expect(config.instanceCacheTtlMs).toBe(HOUR);
  });

  it('8 table segments for the reconciler', () => {
    expect(config.reconcilerScanSegments).toBe(8);
  });
});
