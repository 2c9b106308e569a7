/** Set-ups shared by the in-memory EBS model's tests. */
import type { MemoryEbs } from '../../lib/memory/ebs.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

/** Creates a 10 GiB gp3 volume in us-east-1a carrying stack-a's ownership tags (client token `t1`); returns its id. */
export async function createOwnedVolume(ebs: MemoryEbs): Promise<string> {
  const { ebsVolumeId } = await ebs.createVolume({
    clientToken: 't1',
    availabilityZone: 'us-east-1a',
    spec: { sizeGiB: 10, volumeType: 'gp3' },
    tags: { [OWNERSHIP_TAGS.owner]: 'stack-a', [OWNERSHIP_TAGS.record]: 't1' },
  });
  return ebsVolumeId;
}
