/** An If-Match list of entity tags (RFC 9110 §8.8.3, §5.6.1): each quoted tag is one element, elements are separated by commas. */
import { describe, expect, it } from 'vitest';
import { entityTag, parseIfMatch } from '../../lib/api/preconditions.js';
import { GP3, serviceWorld } from './api-fixtures.js';

describe('an If-Match list of entity tags', () => {
  it('reads each quoted tag of a comma-separated list as its own tag', () => {
    expect(parseIfMatch('"1.a", "2.b"')).toEqual({ header: '"1.a", "2.b"', any: false, tags: ['"1.a"', '"2.b"'] });
    expect(parseIfMatch('"1.a","2.b",W/"3.c"').tags).toEqual(['"1.a"', '"2.b"']);
  });

  it('lets a write through when the current tag is anywhere in the list', async () => {
    const { service } = serviceWorld();
    const created = await service.createVolume({ volumeId: 'data-01', spec: GP3 });
    const current = entityTag(created.value);
    const patched = await service.patchVolume('data-01', { sizeGiB: 30 }, parseIfMatch(`"9.stale", ${current}`));
    expect(patched.spec.sizeGiB).toBe(30);
    const again = await service.patchVolume('data-01', { sizeGiB: 40 }, parseIfMatch(`${entityTag(patched)}, "9.stale"`));
    expect(again.spec.sizeGiB).toBe(40);
  });

  it('reads tags separated by anything but a comma as malformed', () => {
    for (const header of ['"1.a"; "2.b"', '"1.a" "2.b"', '"1.a"x']) {
      expect(parseIfMatch(header), header).toEqual({ header, any: false, tags: [], fault: 'malformed' });
    }
  });
});
