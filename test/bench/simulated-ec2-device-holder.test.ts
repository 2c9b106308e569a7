/**
 * The invariant `bench/sim/ec2.ts` watches on attach: never two volumes on one device of an
 * instance. A device is an instance's own: the same device name on another instance is another
 * device, and a volume that moved to another device or instance no longer holds the one it left.
 */
import { describe, expect, it } from 'vitest';
import { EventLoop } from '../../bench/sim/event-loop.js';
import { Lognormal } from '../../bench/sim/latency.js';
import { Random } from '../../bench/sim/random.js';
import { SimulatedEc2 } from '../../bench/sim/ec2.js';
import type { ProviderAttachment, ProviderVolume, VolumeProvider } from '../../lib/engine/ports.js';

const T0 = Date.UTC(2026, 0, 1);

function volume(ebsVolumeId: string, attachments: ProviderAttachment[]): ProviderVolume {
  return { ebsVolumeId, state: 'in-use', availabilityZone: 'us-east-1a', sizeGiB: 8, volumeType: 'gp3', multiAttach: false, encrypted: true, attachments, tags: {} };
}

/** Attaches in turn; each attach leaves its volume attached where it was asked for, and only there. */
async function doubleAttachesAfter(attaches: Array<[string, string, string]>): Promise<number> {
  const loop = new EventLoop(T0);
  const volumes = new Map<string, ProviderVolume>();
  const ebs = {
    attachVolume: async (r: { ebsVolumeId: string; instanceId: string; device: string }) => {
      volumes.set(r.ebsVolumeId, volume(r.ebsVolumeId, [{ instanceId: r.instanceId, device: r.device, state: 'attached' }]));
    },
    describeVolumes: async (ids: string[]) => ids.flatMap((id) => (volumes.has(id) ? [volumes.get(id)!] : [])),
  } as unknown as VolumeProvider;
  const ec2 = new SimulatedEc2(loop, new Random(1), ebs, new Lognormal(10, 10));
  const work = (async () => {
    for (const [ebsVolumeId, instanceId, device] of attaches) await ec2.attachVolume({ ebsVolumeId, instanceId, device });
  })();
  await loop.run({ done: () => false, untilMs: T0 + 3_600_000 });
  await work;
  return ec2.doubleAttaches;
}

describe("the simulated EC2 API's device invariant", () => {
  it('counts a second volume on a device of an instance whose first volume is still there, after a third took the same name on another instance', async () => {
    expect(
      await doubleAttachesAfter([
        ['vol-a', 'i-1', '/dev/xvdb'],
        ['vol-b', 'i-2', '/dev/xvdb'],
        ['vol-c', 'i-1', '/dev/xvdb'],
      ]),
    ).toBe(1);
  });

  it('counts no volume on a device its holder left for another device of the instance', async () => {
    expect(
      await doubleAttachesAfter([
        ['vol-a', 'i-1', '/dev/xvdb'],
        ['vol-a', 'i-1', '/dev/xvdc'],
        ['vol-b', 'i-1', '/dev/xvdb'],
      ]),
    ).toBe(0);
  });

  it('counts no volume on a device its holder left for the same device name on another instance', async () => {
    expect(
      await doubleAttachesAfter([
        ['vol-a', 'i-1', '/dev/xvdb'],
        ['vol-a', 'i-2', '/dev/xvdb'],
        ['vol-b', 'i-1', '/dev/xvdb'],
      ]),
    ).toBe(0);
  });
});
