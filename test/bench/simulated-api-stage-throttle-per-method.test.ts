/**
 * The simulated provisioner's client meets the stage throttle the stack deploys
 * (BENCHMARKS.md, "The client's requests"): `API.throttleBurst` (100) requests of a method at
 * once, then `API.throttleRatePerSecond` (50) a second, a bucket per method; the rest are
 * answered 429 and not billed.
 */
import { describe, expect, it } from 'vitest';
import { API } from '../../lib/settings.js';
import { simulatedProvisioner } from './simulated-provisioner.js';

describe("the simulated provisioner's stage throttle", () => {
  it('passes a burst of 100 DELETEs at once and answers the 101st 429', () => {
    expect(API.throttleBurst).toBe(100);
    const { design } = simulatedProvisioner();
    // Volumes the table does not hold: each DELETE the stage passes on is billed, then answered 404.
    for (let i = 0; i <= 100; i++) void design.release(`vol-${i}`).catch(() => undefined);
    expect(design.apiGatewayRequests()).toBe(100);
    expect(design.apiThrottling().apiGateway429).toBe(1);
  });

  it('passes 50 more DELETEs a second after the burst emptied the bucket, and answers the rest 429', async () => {
    expect(API.throttleRatePerSecond).toBe(50);
    const { loop, design } = simulatedProvisioner();
    const start = loop.now();
    for (let i = 0; i < 100; i++) void design.release(`vol-${i}`).catch(() => undefined);
    expect(design.apiThrottling().apiGateway429).toBe(0);
    let later: { passed: number; refused: number; retriedBefore: number } | undefined;
    loop.after(1000, () => {
      const retriedBefore = design.apiThrottling().clientRetries;
      for (let i = 100; i < 200; i++) void design.release(`vol-${i}`).catch(() => undefined);
      later = { passed: design.apiGatewayRequests(), refused: design.apiThrottling().apiGateway429, retriedBefore };
    });
    await loop.run({ untilMs: start + 1000 });
    expect(later).toEqual({ passed: 150, refused: 50, retriedBefore: 0 });
  });

  it("gives POST /volumes a bucket of its own, full while DELETE's is empty", async () => {
    const { loop, design, requests } = simulatedProvisioner();
    for (let i = 0; i < 100; i++) void design.release(`vol-${i}`).catch(() => undefined);
    expect(design.apiGatewayRequests()).toBe(100);
    void design.request(requests[0]!);
    expect(design.apiGatewayRequests()).toBe(101);
    expect(design.apiThrottling().apiGateway429).toBe(0);
    await loop.run({ untilMs: loop.now() + 1000 });
  });
});
