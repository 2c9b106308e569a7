/**
 * Tag keys starting with `aws:` or `ebs-provisioner:`, in any case, are reserved (docs/api.md,
 * Tags): a key that is the prefix alone starts with it too.
 */
import { describe, expect, it } from 'vitest';
import { validateVolumeSpec } from '../../lib/domain/validation.js';

const spec = (tags: Record<string, string>) => ({ sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a', tags });

describe('a tag key that is a reserved prefix alone', () => {
  it('is refused, in any case', () => {
    for (const key of ['aws:', 'AWS:', 'ebs-provisioner:', 'EBS-Provisioner:']) {
      const parsed = validateVolumeSpec(spec({ [key]: 'x' }));
      expect(parsed.ok ? [] : parsed.issues, key).toEqual([{ path: `spec.tags[${JSON.stringify(key)}]`, message: `tag keys starting with "${key.toLowerCase()}" are reserved` }]);
    }
  });
});
