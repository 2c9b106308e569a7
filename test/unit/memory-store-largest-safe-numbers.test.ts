import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';

const at = '2026-01-01T00:00:00.000Z';
const volume = (volumeId: string, generation: number): VolumeRecord => ({
  kind: 'volume',
  volumeId,
  spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' },
  life: 'alive',
  generation,
  status: { state: 'pending', attempts: 0, updatedAt: at },
  version: 0,
  createdAt: at,
});

describe('MemoryRecordStore: numbers at the bound the DynamoDB client writes', () => {
  it('writes Number.MAX_SAFE_INTEGER and its negative, the largest numbers read back exactly, in a create and in an update', async () => {
    const store = new MemoryRecordStore();
    await store.create(volume('v1', Number.MAX_SAFE_INTEGER));
    await store.create(volume('v2', -Number.MAX_SAFE_INTEGER));
    const key = { kind: 'volume', volumeId: 'v1' } as const;
    await store.update<VolumeRecord>(key, { observedGeneration: Number.MAX_SAFE_INTEGER });
    expect(await store.get(key)).toMatchObject({ generation: Number.MAX_SAFE_INTEGER, observedGeneration: Number.MAX_SAFE_INTEGER, version: 2 });
    expect(await store.get({ kind: 'volume', volumeId: 'v2' })).toMatchObject({ generation: -Number.MAX_SAFE_INTEGER });
  });
});
