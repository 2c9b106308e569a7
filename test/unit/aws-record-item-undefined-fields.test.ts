import { marshall } from '@aws-sdk/util-dynamodb';
import { describe, expect, it } from 'vitest';
import { ITEM_MARSHALL_OPTIONS, toItem } from '../../lib/aws/record-item.js';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { newVolume } from './engine-fixtures.js';

describe('a record written as an item', () => {
  it('leaves out its undefined fields, at the top and inside a map, instead of failing the write', () => {
    const volume = { ...newVolume('v1'), ebsVolumeId: undefined, spec: { ...newVolume('v1').spec, iops: undefined } } as unknown as VolumeRecord;
    const item = marshall(toItem(volume), ITEM_MARSHALL_OPTIONS);
    expect(item).not.toHaveProperty('ebsVolumeId');
    expect(item.spec!.M).not.toHaveProperty('iops');
    expect(item.spec!.M!.sizeGiB).toEqual({ N: String(volume.spec.sizeGiB) });
  });
});
