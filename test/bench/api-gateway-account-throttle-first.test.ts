/**
 * API Gateway's throttles in the simulation (`bench/sim/api-gateway.ts`): a request is put to the
 * account's bucket first, then to its method's bucket of the stage. A request the stage refuses
 * has already spent a token of the account's bucket; one the account refuses never reaches the
 * stage's bucket.
 */
import { describe, expect, it } from 'vitest';
import { ApiGatewayThrottles } from '../../bench/sim/api-gateway.js';

const T0 = Date.UTC(2026, 0, 1);

describe("API Gateway's account throttle before the stage's", () => {
  it("spends an account token on a request its method's stage bucket then refuses", () => {
    // Account: 2 at once; stage: 1 at once per method; neither refills within the test.
    const throttles = new ApiGatewayThrottles({ ratePerSecond: 0.001, burst: 2 }, { ratePerSecond: 0.001, burst: 1 }, T0);
    expect(throttles.admit('POST /volumes', T0)).toBe(true);
    // Refused by the stage, after the account gave its second token.
    expect(throttles.admit('POST /volumes', T0)).toBe(false);
    // The account's bucket is empty: refused before the DELETE's own stage bucket is asked.
    expect(throttles.admit('DELETE /volumes/{id}', T0)).toBe(false);
  });

  it("leaves a method's stage bucket untouched by a request the account refuses", () => {
    const throttles = new ApiGatewayThrottles({ ratePerSecond: 1, burst: 1 }, { ratePerSecond: 0.001, burst: 1 }, T0);
    expect(throttles.admit('POST /volumes', T0)).toBe(true);
    // The account is empty: this DELETE is refused and the DELETEs' stage bucket keeps its token.
    expect(throttles.admit('DELETE /volumes/{id}', T0)).toBe(false);
    // A second later the account has a token again, and the DELETE's stage bucket still has its own.
    expect(throttles.admit('DELETE /volumes/{id}', T0 + 1000)).toBe(true);
  });
});
