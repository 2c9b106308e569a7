/** A PATCH sending an empty tag map removes the client's tags: the spec is then the one a volume created without tags has. */
import { describe, expect, it } from 'vitest';
import { GP3, serviceWorld } from './api-fixtures.js';

describe('PATCH with tags {}', () => {
  it('removes the tags from the spec, as null does, and bumps the generation', async () => {
    const { service } = serviceWorld();
    for (const [volumeId, tags] of [
      ['data-01', {}],
      ['data-02', null],
    ] as const) {
      await service.createVolume({ volumeId, spec: { ...GP3, tags: { team: 'storage', env: 'dev' } } });
      const patched = await service.patchVolume(volumeId, { tags });
      expect(patched.spec, volumeId).toStrictEqual(GP3);
      expect(patched.generation, volumeId).toBe(2);
      expect((await service.getVolume(volumeId)).spec, volumeId).toStrictEqual(GP3);
    }
  });

  it('leaves a spec holding no tags as a volume created with an empty tag map has it', async () => {
    const { service } = serviceWorld();
    const created = await service.createVolume({ volumeId: 'data-01', spec: { ...GP3, tags: {} } });
    expect(created.value.spec).toStrictEqual(GP3);
  });
});
