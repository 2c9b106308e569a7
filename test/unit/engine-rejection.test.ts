import { describe, expect, it } from 'vitest';
import type { ProvisionerRecord } from '../../lib/domain/records.js';
import { CLOCK_SKEW_MS, judgeRecord, rejectionStands, writeRejection } from '../../lib/engine/rejection.js';
import { invalidRecordStatus } from '../../lib/engine/status.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { RecordingLog } from '../../lib/memory/log.js';
import { RecordingMetrics } from '../../lib/memory/metrics.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { newVolume, START, volumeKey } from './engine-fixtures.js';

const LEASE_MS = 180_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('judgeRecord', () => {
  const withClaimTo = (expiresAt: number) => judgeRecord({ ...newVolume('data-1'), claim: { owner: 'executor-1', expiresAt } }, START, LEASE_MS);

  it('takes a claim that ends up to twice the lease after now; one beyond is refused, saying when it ends, the record kept', () => {
    expect(withClaimTo(START + LEASE_MS).rejection).toBeUndefined();
    expect(withClaimTo(START + 1.5 * LEASE_MS).rejection).toBeUndefined();
    expect(withClaimTo(START + 2 * LEASE_MS).rejection).toBeUndefined();
    const beyond = withClaimTo(START + 2 * LEASE_MS + 1);
    expect(beyond.rejection).toBe(
      `claim.expiresAt: ends at ${iso(START + 2 * LEASE_MS + 1)}, beyond the 180 s lease the system takes (claims are the system's to write): remove it`,
    );
    expect(beyond.record).toMatchObject({ volumeId: 'data-1' });
  });

  it('refuses a claim ending past the last time a date can hold, naming the number as written', () => {
    expect(withClaimTo(Number.MAX_SAFE_INTEGER).rejection).toMatch(/^claim\.expiresAt: ends at 9007199254740991, beyond the 180 s lease/);
  });

  it('takes times up to a minute ahead of the clock; one further ahead is refused, each named', () => {
    const judged = (extra: object) => judgeRecord({ ...newVolume('data-1'), ...extra }, START, LEASE_MS).rejection;
    const status = newVolume('data-1').status;
    expect(judged({ status: { ...status, updatedAt: iso(START + CLOCK_SKEW_MS) } })).toBeUndefined();
    expect(judged({ status: { ...status, updatedAt: iso(START + 30_000), operationStartedAt: iso(START + 30_000) }, modificationSentAt: iso(START + 30_000) })).toBeUndefined();
    const ahead = iso(START + CLOCK_SKEW_MS + 1);
    const says = (field: string) => `${field}: ${ahead} is ahead of the clock (the system writes its times as it writes them): put it right or remove it`;
    expect(judged({ status: { ...status, updatedAt: ahead } })).toBe(says('status.updatedAt'));
    expect(judged({ status: { ...status, operationStartedAt: ahead } })).toBe(says('status.operationStartedAt'));
    expect(judged({ modificationSentAt: ahead })).toBe(says('modificationSentAt'));
    expect(judged({ status: { ...status, updatedAt: iso(START + 2 * 60_000) } })).toMatch(/^status\.updatedAt: .* is ahead of the clock/);
  });

  it('names every reason when both the claim and a time are not ones the system wrote', () => {
    const ahead = iso(START + 10 * 60_000);
    const judged = judgeRecord({ ...newVolume('data-1'), claim: { owner: 'executor-1', expiresAt: START + 10 * LEASE_MS }, modificationSentAt: ahead }, START, LEASE_MS);
    expect(judged.rejection).toBe(
      `claim.expiresAt: ends at ${iso(START + 10 * LEASE_MS)}, beyond the 180 s lease the system takes (claims are the system's to write): remove it; ` +
        `modificationSentAt: ${ahead} is ahead of the clock (the system writes its times as it writes them): put it right or remove it`,
    );
  });
});

describe('rejectionStands', () => {
  it('holds only for a record in error under the rejection code with the message written for these reasons', () => {
    const reasons = 'spec.sizeGiB: must be an integer';
    expect(rejectionStands({ status: invalidRecordStatus(START, reasons) }, reasons)).toBe(true);
    expect(rejectionStands({ status: invalidRecordStatus(START, 'spec.iops: too large') }, reasons)).toBe(false);
    expect(rejectionStands({ status: { ...invalidRecordStatus(START, reasons), state: 'pending' } }, reasons)).toBe(false);
    expect(rejectionStands({ status: { ...invalidRecordStatus(START, reasons), code: 'Other' } }, reasons)).toBe(false);
    expect(rejectionStands({}, reasons)).toBe(false);
    expect(rejectionStands(undefined, reasons)).toBe(false);
  });

  it('holds for reasons too long for a status, as their shortened message was written', () => {
    const reasons = 'x'.repeat(5_000);
    expect(rejectionStands({ status: invalidRecordStatus(START, reasons) }, reasons)).toBe(true);
  });
});

describe('writeRejection', () => {
  const REASONS = 'spec.sizeGiB: must be an integer';
  function deps() {
    return { store: new MemoryRecordStore(), clock: new FakeClock(START), metrics: new RecordingMetrics(), log: new RecordingLog() };
  }

  it('writes the rejection over a record written without a version, judged as version 0', async () => {
    const d = deps();
    const { version: _version, ...unversioned } = newVolume('data-1');
    d.store.putRaw(unversioned);
    await writeRejection(d, unversioned as ProvisionerRecord, volumeKey('data-1'), REASONS);
    expect(await d.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'error', code: 'InvalidRecord', message: REASONS }, version: 1 });
  });

  it('leaves a record its client changed since it was judged: one judged without a version that now has one, one written again with another createdAt', async () => {
    const d = deps();
    const { version: _version, ...unversioned } = newVolume('data-1');
    d.store.putRaw(newVolume('data-1', { version: 1 }));
    await writeRejection(d, unversioned as ProvisionerRecord, volumeKey('data-1'), REASONS);
    expect(await d.store.get(volumeKey('data-1'))).toMatchObject({ status: { state: 'pending' }, version: 1 });

    const judged = newVolume('data-2', { version: 3, createdAt: new Date(START).toISOString() });
    d.store.putRaw({ ...judged, createdAt: new Date(START + 1_000).toISOString() });
    await writeRejection(d, judged, volumeKey('data-2'), REASONS);
    expect(await d.store.get(volumeKey('data-2'))).toMatchObject({ status: { state: 'pending' }, version: 3 });
  });
});
