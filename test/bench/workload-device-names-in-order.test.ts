/**
 * The device names of a workload's requests (bench/workload.ts): the slots /dev/sdf … /dev/sdz, the
 * first volume sent to an instance in /dev/sdf and each next one in the next letter.
 */
import { describe, expect, it } from 'vitest';
import { instancesFor, requestsFor } from '../../bench/workload.js';

describe('the device names of a workload', () => {
  it('gives the volumes of each instance /dev/sdf, /dev/sdg and on, in the order they are requested', () => {
    const n = 100;
    const instances = instancesFor(n);
    const perInstance = new Map<string, string[]>();
    for (const request of requestsFor(n, instances)) perInstance.set(request.instanceId, [...(perInstance.get(request.instanceId) ?? []), request.device]);
    const letters = 'fghijklmnopqrstuvwxy';
    expect(perInstance.size).toBe(instances.length);
    for (const devices of perInstance.values()) expect(devices).toEqual([...letters].map((letter) => `/dev/sd${letter}`));
  });
});
