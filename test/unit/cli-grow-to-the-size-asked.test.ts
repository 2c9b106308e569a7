/**
 * `volumes grow` grows a volume to at least the size given: a volume that already asks for exactly
 * that size is left as it is (no write, its generation kept), with the note saying so.
 */
import { describe, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { EXIT } from '../../cli/main.js';
import { cliHarness, volumeKey } from './cli-harness.js';

describe('CLI volumes grow to the size the volume asks for', () => {
  const h = cliHarness();

  it('writes nothing and says the volume is left as it is', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    const before = (await h.store.get(volumeKey('data-01'))) as VolumeRecord;
    h.sent = [];
    const run = await h.cli(['-o', 'json', 'volumes', 'grow', 'data-01', '--size', '20']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr).toBe('volume data-01 already asks for 20 GiB; left as it is (volumes modify --size asks for less before the volume is made)\n');
    expect(run.json).toMatchObject({ volumeId: 'data-01', generation: before.generation, spec: { sizeGiB: 20 } });
    expect(h.sent.map((request) => request.method)).toEqual(['GET']);
    expect(((await h.store.get(volumeKey('data-01'))) as VolumeRecord).generation).toBe(before.generation);
  });
});
