/**
 * The ClientToken a recorded CreateVolume request holds: EC2 takes at most 64 ASCII characters,
 * and a request repeated with it must name one.
 */
import { describe, expect, it } from 'vitest';
import { parseRecord } from '../../lib/domain/validation.js';
import { newVolume } from './engine-fixtures.js';

function recordWithToken(clientToken: string) {
  const volume = newVolume('v1', { status: { state: 'creating', attempts: 0, updatedAt: '' } });
  return { ...volume, createRequest: { clientToken, availabilityZone: 'us-east-1a', spec: volume.spec } };
}

function pathsOf(record: unknown): string[] {
  const parsed = parseRecord(record);
  return parsed.ok ? [] : parsed.issues.map((issue) => issue.path);
}

describe('the client token of a recorded CreateVolume', () => {
  it('reads a token of 1 and of 64 ASCII characters', () => {
    expect(pathsOf(recordWithToken('t'))).toEqual([]);
    expect(pathsOf(recordWithToken('t'.repeat(64)))).toEqual([]);
    expect(pathsOf(recordWithToken('ebsp-0123~!{}'))).toEqual([]);
  });

  it('refuses an empty token, one of 65 characters, and one holding a character outside ASCII', () => {
    for (const token of ['', 't'.repeat(65), 'tö']) expect(pathsOf(recordWithToken(token)), JSON.stringify(token)).toEqual(['createRequest.clientToken']);
  });
});
