import { describe, expect, it } from 'vitest';
import type { AttachmentRecord, VolumeRecord, VolumeState } from '../../lib/domain/records.js';
import {
  affectedByVolumeRecordRemoval,
  attachPrerequisites,
  modificationNeeded,
  modificationReaches,
  planAttachment,
  planVolume,
  releasedByVolume,
} from '../../lib/engine/planner.js';
import type { ProviderInstance } from '../../lib/engine/ports.js';
import { T, attachment, created, volume } from './planner-fixtures.js';

const NOW = Date.parse(T);
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** EC2's slack for its clock, as the planner gives it. */
const SLACK = 5_000;

const at = (ms: number) => new Date(ms).toISOString();

/** A volume record's fields for modifications started at these times (epoch ms, oldest first). */
function starts(...times: number[]): Pick<VolumeRecord, 'lastModificationStartedAt' | 'earlierModificationStarts'> {
  const iso = times.map(at);
  return { lastModificationStartedAt: iso.at(-1)!, ...(iso.length > 1 ? { earlierModificationStarts: iso.slice(0, -1) } : {}) };
}

/** The 4 modifications EC2 allows in 24 hours, the latest at `latest`, an hour apart. */
const fourStarts = (latest: number) => starts(latest - 3 * HOUR, latest - 2 * HOUR, latest - HOUR, latest);

/** What the planner says while EC2's limit holds a modification back until `atMs`. */
function waitsUntil(atMs: number) {
  return { type: 'cooldown', op: 'modify-volume', atMs, reason: `waiting until ${at(atMs)}: EC2 allows 4 modifications per volume in any 24 hours` };
}

/** A volume recorded by a version that kept neither its CreateVolume request nor the tags EC2 holds. */
const createdLongAgo = { ...created, observed: { sizeGiB: 10, volumeType: 'gp3' as const } };
/** A CreateVolume was sent and its answer never recorded. */
const unanswered = { createRequest: { clientToken: 'ebsp-data-1-g1', availabilityZone: 'eu-west-1a', spec: { sizeGiB: 10, volumeType: 'gp3' as const } } };

describe('planVolume (alive)', () => {
  it.each([
    ['pending', {}, 'create-volume'],
    ['pending', unanswered, 'create-volume'],
    ['pending', created, 'check-volume'],
    ['creating', {}, 'create-volume'],
    ['creating', unanswered, 'create-volume'],
    ['creating', created, 'check-volume'],
    ['modifying', created, 'check-volume'],
    ['deleting', created, 'check-volume'],
  ] as const)('%s %o → %s', (state, extra, op) => {
    expect(planVolume(volume(state, extra), [], NOW)).toMatchObject({ type: 'operation', op });
  });

  it('does nothing when the volume is where it should be, or terminal', () => {
    expect(planVolume(volume('available', created), [], NOW)).toMatchObject({ type: 'none' });
    expect(planVolume(volume('in-use', created), [], NOW)).toMatchObject({ type: 'none' });
    expect(planVolume(volume('error'), [], NOW)).toMatchObject({ type: 'none' });
    // Until the client retries, even with a CreateVolume unanswered.
    expect(planVolume(volume('error', unanswered), [], NOW)).toMatchObject({ type: 'none' });
  });

  it('looks at EC2 first when an available or in-use volume records nothing of what EC2 holds, whatever its spec asks for', () => {
    const { observed: _observed, ...unobserved } = created;
    for (const state of ['available', 'in-use'] as const)
      for (const spec of [undefined, { sizeGiB: 20, volumeType: 'gp3' as const, tags: { team: 'a' } }])
        expect(planVolume(volume(state, { ...unobserved, ...(spec ? { spec, generation: 2 } : {}) }), [], NOW)).toMatchObject({ type: 'operation', op: 'check-volume' });
  });

  it('modifies when the spec grew, attached or not', () => {
    const grown = volume('in-use', { ...created, spec: { sizeGiB: 20, volumeType: 'gp3', iops: 4000 } });
    expect(planVolume(grown, [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    expect(modificationNeeded(grown)).toEqual({ ebsVolumeId: 'vol-1', sizeGiB: 20, iops: 4000 });
  });

  describe('tags', () => {
    const tagged = { ...created, observed: { sizeGiB: 10, volumeType: 'gp3' as const, tags: { team: 'a', env: 'dev' } } };
    const spec = (tags?: Record<string, string>) => ({ sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a', ...(tags ? { tags } : {}) });

    it('retags a live volume available or in use whose spec tags differ from those EC2 holds', () => {
      for (const state of ['available', 'in-use'] as const) {
        expect(planVolume(volume(state, { ...tagged, spec: spec({ team: 'b', env: 'dev' }) }), [], NOW)).toEqual({ type: 'operation', op: 'tag-volume', reason: 'tags changed' });
        // A key removed, or every tag removed, is a change too.
        expect(planVolume(volume(state, { ...tagged, spec: spec({ team: 'a' }) }), [], NOW)).toMatchObject({ op: 'tag-volume' });
        expect(planVolume(volume(state, { ...tagged, spec: spec() }), [], NOW)).toMatchObject({ op: 'tag-volume' });
      }
    });

    it('sees the same tags in another key order as no change', () => {
      expect(planVolume(volume('available', { ...tagged, observedGeneration: 1, spec: spec({ env: 'dev', team: 'a' }) }), [], NOW)).toEqual({ type: 'none', reason: 'volume available' });
      // No tags asked for and none held: no change either.
      const bare = { ...created, observed: { ...created.observed, tags: {} } };
      expect(planVolume(volume('available', { ...bare, observedGeneration: 1 }), [], NOW)).toEqual({ type: 'none', reason: 'volume available' });
    });

    it('never retags a dying volume, nor one whose operation is under way', () => {
      const changed = { ...tagged, spec: spec({ team: 'b' }) };
      expect(planVolume(volume('available', { ...changed, life: 'dying' }), [], NOW)).toMatchObject({ type: 'operation', op: 'delete-volume' });
      expect(planVolume(volume('in-use', { ...changed, life: 'dying' }), [], NOW)).toMatchObject({ type: 'operation', op: 'check-volume' });
      expect(planVolume(volume('modifying', changed), [], NOW)).toMatchObject({ type: 'operation', op: 'check-volume' });
      expect(planVolume(volume('error', changed), [], NOW)).toMatchObject({ type: 'none' });
    });

    it('judges a record written before tags were observed against the tags it was created with: an upgrade retags nothing', () => {
      const createRequest = { clientToken: 'ebsp-t', availabilityZone: 'eu-west-1a', spec: spec({ team: 'a' }) };
      const upgraded = { ...createdLongAgo, createRequest, observedGeneration: 1, spec: spec({ team: 'a' }) };
      expect(planVolume(volume('available', upgraded), [], NOW)).toEqual({ type: 'none', reason: 'volume available' });
      // Older still, without the request: the spec as it is stands for what was created.
      expect(planVolume(volume('in-use', { ...createdLongAgo, observedGeneration: 1, spec: spec({ team: 'a' }) }), [], NOW)).toEqual({ type: 'none', reason: 'volume in-use' });
      // A change the client makes after the upgrade is carried out.
      expect(planVolume(volume('available', { ...upgraded, spec: spec({ team: 'b' }) }), [], NOW)).toMatchObject({ op: 'tag-volume' });
      // Without the request, the tags EC2 holds are unknown: a changed spec is looked at first, not taken as held.
      expect(planVolume(volume('available', { ...createdLongAgo, observedGeneration: 1, generation: 2, spec: spec({ team: 'b' }) }), [], NOW)).toEqual({
        type: 'operation',
        op: 'check-volume',
        reason: 'spec changed; looking at the tags EC2 holds',
      });
    });

    it("retags before modifying, and a modification waiting for EC2's limit holds no tag change back", () => {
      const both = { ...tagged, spec: { ...spec({ team: 'b' }), sizeGiB: 20 } };
      expect(planVolume(volume('available', both), [], NOW)).toMatchObject({ type: 'operation', op: 'tag-volume' });
      // Tags held, the modification follows.
      const retagged = { ...both, observed: { ...both.observed, tags: { team: 'b' } } };
      expect(planVolume(volume('available', retagged), [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
      // 4 modifications within the last 24 hours, as the record says.
      const cooling = fourStarts(NOW);
      expect(planVolume(volume('in-use', { ...both, ...cooling }), [], NOW)).toMatchObject({ type: 'operation', op: 'tag-volume' });
      expect(planVolume(volume('in-use', { ...retagged, ...cooling }), [], NOW)).toMatchObject({ type: 'cooldown', op: 'modify-volume' });
    });
  });

  it("makes no modification while the record knows 4 started within 24 hours, whatever the spec asks for; modifies once the oldest of them is 24 hours old", () => {
    const endsAt = '2026-01-01T21:00:05.000Z';
    const cooling = {
      ...created,
      spec: { sizeGiB: 40, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a' },
      ...fourStarts(NOW),
      status: { state: 'in-use' as const, code: 'InternalError', message: 'An internal error has occurred', attempts: 1, updatedAt: T, nextAttemptAt: T },
    };
    const endsAtMs = Date.parse(endsAt);
    expect(planVolume(volume('in-use', cooling), [], NOW)).toEqual(waitsUntil(endsAtMs));
    expect(planVolume(volume('in-use', cooling), [], endsAtMs)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    // Nothing left to modify (the spec put back), or a spec EBS cannot make, or dying: as without the wait.
    expect(planVolume(volume('in-use', { ...cooling, spec: { ...cooling.spec, sizeGiB: 10 } }), [], NOW)).toMatchObject({ type: 'none' });
    expect(planVolume(volume('in-use', { ...cooling, spec: { ...cooling.spec, sizeGiB: 5 } }), [], NOW)).toMatchObject({ type: 'invalid-spec' });
    expect(planVolume(volume('available', { ...cooling, status: { ...cooling.status, state: 'available' }, life: 'dying' }), [], NOW)).toMatchObject({ type: 'operation', op: 'delete-volume' });
  });

  it('counts the window from the starts on the record: 4 within 24 hours wait until the oldest is 24 hours old (and the slack); 3 do not wait', () => {
    const grown = { ...created, spec: { sizeGiB: 40, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a' } };
    // Four: until the 4th most recent start leaves the window.
    expect(planVolume(volume('in-use', { ...grown, ...starts(NOW - 20 * HOUR, NOW - 10 * HOUR, NOW - HOUR, NOW) }), [], NOW)).toEqual(waitsUntil(NOW + 4 * HOUR + SLACK));
    // Three, or none: no wait, the first one after the system's own modification included.
    expect(planVolume(volume('in-use', { ...grown, ...starts(NOW - 2 * HOUR, NOW - HOUR, NOW) }), [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    expect(planVolume(volume('in-use', { ...grown, ...starts(NOW) }), [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    expect(planVolume(volume('in-use', grown), [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    // Four of which the oldest is 24 hours old (and the slack): it no longer counts.
    expect(planVolume(volume('in-use', { ...grown, ...starts(NOW - DAY - SLACK, NOW - 2 * HOUR, NOW - HOUR, NOW) }), [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    expect(planVolume(volume('in-use', { ...grown, ...starts(NOW - DAY, NOW - 2 * HOUR, NOW - HOUR, NOW) }), [], NOW)).toEqual(waitsUntil(NOW + SLACK));
    // A start the record cannot read does not count; the earlier ones in any order all do.
    expect(planVolume(volume('in-use', { ...grown, lastModificationStartedAt: T, earlierModificationStarts: ['not a time', at(NOW - HOUR), at(NOW - 2 * HOUR)] }), [], NOW)).toMatchObject({
      type: 'operation',
    });
    expect(planVolume(volume('in-use', { ...grown, lastModificationStartedAt: T, earlierModificationStarts: [at(NOW - HOUR), at(NOW - 3 * HOUR), at(NOW - 2 * HOUR)] }), [], NOW)).toEqual(
      waitsUntil(NOW + 21 * HOUR + SLACK),
    );
  });

  it("knows EC2's limit from the modification starts on the record alone, whatever the status says", () => {
    const grown = { ...created, spec: { sizeGiB: 40, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a' }, ...fourStarts(NOW) };
    // 24 hours from the oldest of the four, and the slack given to EC2's clock.
    const endsAtMs = NOW - 3 * HOUR + DAY + SLACK;
    const cooldown = waitsUntil(endsAtMs);
    // A status that says nothing of it (a spec rejection written over the wait, say).
    expect(planVolume(volume('in-use', grown), [], NOW + HOUR)).toEqual(cooldown);
    expect(planVolume(volume('in-use', { ...grown, status: { state: 'in-use', code: 'InvalidSpecChange', attempts: 0, updatedAt: T } }), [], NOW + HOUR)).toEqual(cooldown);
    // A status that shows another wait: the record's end all the same; a status wait alone holds nothing back.
    const waitUntil = (time: number) => ({ state: 'in-use' as const, code: 'VolumeModificationRateExceeded', attempts: 0, updatedAt: T, nextAttemptAt: at(time) });
    expect(planVolume(volume('in-use', { ...grown, status: waitUntil(endsAtMs - 60_000) }), [], NOW)).toEqual(cooldown);
    expect(planVolume(volume('in-use', { ...grown, status: waitUntil(endsAtMs + 60_000) }), [], NOW)).toEqual(cooldown);
    const { lastModificationStartedAt: _, earlierModificationStarts: __, ...unknownStarts } = grown;
    expect(planVolume(volume('in-use', { ...unknownStarts, status: waitUntil(endsAtMs) }), [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    expect(planVolume(volume('in-use', grown), [], endsAtMs)).toMatchObject({ type: 'operation', op: 'modify-volume' });
    // Nothing to modify: no wait.
    expect(planVolume(volume('in-use', { ...grown, spec: { ...grown.spec, sizeGiB: 10 } }), [], NOW)).toMatchObject({ type: 'none' });
  });

  it("counts a modification start later than now (beyond the 5 s slack for EC2's clock) as now: 24 hours at most from the time it is planned", () => {
    const inTenDays = NOW + 10 * DAY;
    const grown = { ...created, spec: { sizeGiB: 40, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a' }, ...starts(inTenDays, inTenDays, inTenDays, inTenDays) };
    expect(planVolume(volume('in-use', grown), [], NOW)).toEqual(waitsUntil(NOW + DAY + SLACK));
    // One of four in the future: now, the oldest still counting from its own start.
    expect(planVolume(volume('in-use', { ...grown, ...starts(NOW - 3 * HOUR, NOW - 2 * HOUR, NOW - HOUR, inTenDays) }), [], NOW)).toEqual(waitsUntil(NOW + 21 * HOUR + SLACK));
    // Within the slack: as the record says.
    const slightlyAhead = NOW + 5_000;
    expect(planVolume(volume('in-use', { ...grown, ...starts(slightlyAhead, slightlyAhead, slightlyAhead, slightlyAhead) }), [], NOW)).toEqual(waitsUntil(NOW + DAY + 2 * SLACK));
  });

  it('brings IOPS or throughput a gp3 spec leaves out (cleared) back to the baseline, 3000 IOPS and 125 MiB/s', () => {
    const spec = { sizeGiB: 100, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a' };
    const tuned = { ...created, spec, observed: { sizeGiB: 100, volumeType: 'gp3' as const, iops: 6000, throughput: 250 } };
    expect(modificationNeeded(volume('in-use', tuned))).toEqual({ ebsVolumeId: 'vol-1', iops: 3000, throughput: 125 });
    expect(modificationNeeded(volume('in-use', { ...tuned, spec: { ...spec, iops: 6000 } }))).toEqual({ ebsVolumeId: 'vol-1', throughput: 125 });
    // Already at the baseline, reported or not: nothing to modify.
    expect(modificationNeeded(volume('in-use', { ...created, observed: { sizeGiB: 10, volumeType: 'gp3', iops: 3000, throughput: 125 } }))).toBeUndefined();
    expect(modificationNeeded(volume('in-use', created))).toBeUndefined();
  });

  it('compares no IOPS or throughput a type takes no setting for: gp2 reports IOPS that follow its size', () => {
    const gp2 = { sizeGiB: 100, volumeType: 'gp2' as const, availabilityZone: 'eu-west-1a' };
    expect(modificationNeeded(volume('available', { ...created, spec: gp2, observed: { sizeGiB: 100, volumeType: 'gp2', iops: 300 } }))).toBeUndefined();
  });

  it('names on a type change every IOPS and throughput value the new type takes: EC2 would apply its defaults, not keep the old values', () => {
    const fromGp2 = { ...created, observed: { sizeGiB: 100, volumeType: 'gp2' as const, iops: 300 } };
    const io1 = { sizeGiB: 100, volumeType: 'io1' as const, iops: 300, availabilityZone: 'eu-west-1a' };
    expect(modificationNeeded(volume('available', { ...fromGp2, spec: io1 }))).toEqual({ ebsVolumeId: 'vol-1', volumeType: 'io1', iops: 300 });
    const fromIo1 = { ...created, observed: { sizeGiB: 100, volumeType: 'io1' as const, iops: 5000 } };
    expect(modificationNeeded(volume('available', { ...fromIo1, spec: { ...io1, volumeType: 'gp3', iops: undefined } }))).toEqual({
      ebsVolumeId: 'vol-1',
      volumeType: 'gp3',
      iops: 3000,
      throughput: 125,
    });
  });

  it('records a spec change EC2 already holds as observed, with no operation', () => {
    const cleared = volume('available', { ...created, generation: 2, observedGeneration: 1, observed: { sizeGiB: 10, volumeType: 'gp3', iops: 3000, throughput: 125, tags: {} } });
    expect(planVolume(cleared, [], NOW)).toMatchObject({ type: 'none', observedGeneration: 2 });
    expect(planVolume({ ...cleared, observedGeneration: 2 }, [], NOW)).toEqual({ type: 'none', reason: 'volume available' });
  });

  it('tells a modification that takes the volume where a request asks from one that does not', () => {
    const request = { ebsVolumeId: 'vol-1', sizeGiB: 20, iops: 4000 };
    const toward = { ebsVolumeId: 'vol-1', state: 'modifying' as const, targetSizeGiB: 20, targetVolumeType: 'gp3' as const, targetIops: 4000, targetThroughput: 125 };
    expect(modificationReaches(toward, request)).toBe(true);
    expect(modificationReaches({ ...toward, targetIops: 3000 }, request)).toBe(false);
    expect(modificationReaches({ ...toward, targetSizeGiB: 30 }, request)).toBe(false);
    expect(modificationReaches({ ...toward, targetSizeGiB: 30 }, { ebsVolumeId: 'vol-1', iops: 4000 })).toBe(true);
    expect(modificationReaches(toward, { ebsVolumeId: 'vol-1', volumeType: 'io2' })).toBe(false);
    expect(modificationReaches(toward, { ebsVolumeId: 'vol-1', throughput: 250 })).toBe(false);
  });

  it('never plans a shrink: the spec is rejected, naming the size EC2 holds', () => {
    const shrunk = volume('available', { ...created, spec: { sizeGiB: 5, volumeType: 'gp3' } });
    expect(modificationNeeded(shrunk)).toBeUndefined();
    expect(planVolume(shrunk, [], NOW)).toEqual({ type: 'invalid-spec', reason: 'spec.sizeGiB: EBS volumes can only grow: 10 GiB cannot become 5 GiB' });
  });

  it('carries out a spec whole or not at all: a grow beside a changed encryption is no modification', () => {
    const spec = { sizeGiB: 10, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a', encrypted: false };
    const record = volume('in-use', { ...created, createRequest: { clientToken: 'ebsp-t', availabilityZone: 'eu-west-1a', spec }, spec: { ...spec, sizeGiB: 20, encrypted: true } });
    expect(modificationNeeded(record)).toBeUndefined();
    expect(planVolume(record, [], NOW)).toEqual({ type: 'invalid-spec', reason: 'spec.encrypted: is fixed when the volume is created' });
    // Put right, the grow goes ahead.
    expect(planVolume({ ...record, spec: { ...spec, sizeGiB: 20 } }, [], NOW)).toMatchObject({ type: 'operation', op: 'modify-volume' });
  });

  it('judges the spec against EC2, not the spec it was created with: grown outside to 50 GiB, 10 cannot be met, 60 can', () => {
    const grownOutside = { ...created, createRequest: { clientToken: 'ebsp-t', availabilityZone: 'eu-west-1a', spec: volume('available').spec }, observed: { sizeGiB: 50, volumeType: 'gp3' as const } };
    expect(planVolume(volume('available', grownOutside), [], NOW)).toMatchObject({ type: 'invalid-spec', reason: expect.stringMatching(/50 GiB cannot become 10 GiB/) });
    const grown = volume('available', { ...grownOutside, spec: { ...volume('available').spec, sizeGiB: 60 } });
    expect(modificationNeeded(grown)).toEqual({ ebsVolumeId: 'vol-1', sizeGiB: 60 });
  });

  it('judges no spec before CreateVolume is asked for, and plans only checks while an operation is under way', () => {
    const createRequest = { clientToken: 'ebsp-t', availabilityZone: 'eu-west-1a', spec: volume('pending').spec };
    const changed = { sizeGiB: 5, volumeType: 'gp3' as const, availabilityZone: 'eu-west-1a', tags: { team: 'b' } };
    expect(planVolume(volume('pending', { spec: changed }), [], NOW)).toMatchObject({ type: 'operation', op: 'create-volume' });
    expect(planVolume(volume('creating', { createRequest, spec: changed }), [], NOW)).toMatchObject({ type: 'operation', op: 'create-volume' });
    expect(planVolume(volume('modifying', { ...created, createRequest, spec: changed }), [], NOW)).toMatchObject({ type: 'operation', op: 'check-volume' });
  });

  it('removes a deleted record', () => {
    expect(planVolume(volume('deleted'), [], NOW)).toMatchObject({ type: 'remove' });
  });

  it('decides the same twice on the same state', () => {
    const record = volume('creating', created);
    expect(planVolume(record, [], NOW)).toEqual(planVolume(record, [], NOW));
  });
});

describe('planVolume (dying)', () => {
  const dying = (state: VolumeState, extra: Partial<VolumeRecord> = {}) => volume(state, { life: 'dying', ...extra });

  it('makes alive attachments dying first, then waits for them', () => {
    const decision = planVolume(dying('in-use', created), [attachment('attached'), attachment('attached', { instanceId: 'i-2', life: 'dying' })], NOW);
    expect(decision).toEqual({
      type: 'cascade-dying',
      attachments: [{ kind: 'attachment', volumeId: 'data-1', instanceId: 'i-0123456789abcdef0' }],
      reason: 'detaching 2 attachment(s) before deleting',
    });
    expect(planVolume(dying('available', created), [attachment('detaching', { life: 'dying' })], NOW)).toMatchObject({ type: 'wait' });
  });

  it('counts as detached only the attachments with something to detach: never attached ones are removed with no EC2 call', () => {
    const neverAttached = attachment('pending', { instanceId: 'i-2' });
    const givenUp = attachment('error', { instanceId: 'i-3' });
    expect(planVolume(dying('in-use', created), [attachment('attached'), neverAttached], NOW)).toMatchObject({
      type: 'cascade-dying',
      reason: 'detaching 1 attachment(s) before deleting',
    });
    expect(planVolume(dying('available', created), [neverAttached, givenUp], NOW)).toMatchObject({
      type: 'cascade-dying',
      reason: 'removing 2 never attached attachment(s) before deleting',
    });
    // Dying already: one detaching and one with a device kept (EC2 may hold it attached) count; one without does not.
    const dyingOnes = [attachment('detaching', { life: 'dying' }), attachment('pending', { instanceId: 'i-2', life: 'dying', device: '/dev/sdg' }), { ...givenUp, life: 'dying' as const }];
    expect(planVolume(dying('available', created), dyingOnes, NOW)).toEqual({ type: 'wait', reason: 'waiting for 2 attachment(s) to detach before deleting' });
    expect(planVolume(dying('available', created), [{ ...givenUp, life: 'dying' }], NOW)).toEqual({ type: 'wait', reason: 'waiting to remove 1 never attached attachment(s) before deleting' });
  });

  it('counts one that never sent AttachVolume as one to detach while it looks whether its volume is attached there outside the system', () => {
    const unsent = [attachment('pending', { life: 'dying' }), attachment('error', { life: 'dying' })];
    const io2 = { sizeGiB: 10, volumeType: 'io2' as const, iops: 1000, availabilityZone: 'eu-west-1a' };
    for (const one of unsent) {
      // Its single-attach volume in use, no other record holding it: it looks, and may detach.
      expect(planVolume(dying('in-use', created), [one], NOW)).toEqual({ type: 'wait', reason: 'waiting for 1 attachment(s) to detach before deleting' });
      // Held by another (valid) record: removed with no look.
      const held = attachment('attached', { instanceId: 'i-0fedcba9876543210', life: 'dying', device: '/dev/sdf' });
      expect(planVolume(dying('in-use', created), [one, held], NOW)).toEqual({ type: 'wait', reason: 'waiting for 1 attachment(s) to detach before deleting' });
      // Multi-Attach: it looks whatever others hold.
      expect(planVolume(dying('in-use', { ...created, spec: { ...io2, multiAttach: true } }), [one, held], NOW)).toEqual({
        type: 'wait',
        reason: 'waiting for 2 attachment(s) to detach before deleting',
      });
      // The record says available: no look, never attached.
      expect(planVolume(dying('available', created), [one], NOW)).toEqual({ type: 'wait', reason: 'waiting to remove 1 never attached attachment(s) before deleting' });
    }
  });

  it('counts an attachment record written into the table without a status (as the store returns it) without throwing', () => {
    const raw = { kind: 'attachment', volumeId: 'data-1', instanceId: 'i-2', life: 'alive', version: 1 } as unknown as AttachmentRecord;
    expect(planVolume(dying('available', created), [raw, attachment('pending', { instanceId: 'i-3' })], NOW)).toMatchObject({
      type: 'cascade-dying',
      reason: 'detaching 1 attachment(s) before deleting',
    });
    expect(planVolume(dying('available', created), [{ ...raw, life: 'dying' }], NOW)).toEqual({ type: 'wait', reason: 'waiting for 1 attachment(s) to detach before deleting' });
  });

  it.each([
    ['pending', {}, { type: 'remove' }],
    ['error', {}, { type: 'remove' }],
    // EC2 turned its CreateVolume down: nothing exists.
    ['creating', {}, { type: 'remove' }],
    // A CreateVolume may have made a volume: the request is repeated to learn its id, then it is deleted.
    ['pending', unanswered, { type: 'operation', op: 'create-volume' }],
    ['creating', unanswered, { type: 'operation', op: 'create-volume' }],
    ['error', unanswered, { type: 'operation', op: 'create-volume' }],
    // Retried after an error and made dying before the retry looked at the volume.
    ['pending', created, { type: 'operation', op: 'check-volume' }],
    ['creating', created, { type: 'operation', op: 'check-volume' }],
    ['available', created, { type: 'operation', op: 'delete-volume' }],
    ['in-use', created, { type: 'operation', op: 'check-volume' }],
    ['modifying', created, { type: 'operation', op: 'check-volume' }],
    ['deleting', created, { type: 'operation', op: 'check-volume' }],
    ['error', created, { type: 'operation', op: 'delete-volume' }],
  ] as const)('%s %o → %o once no attachment remains', (state, extra, expected) => {
    expect(planVolume(dying(state, extra), [], NOW)).toMatchObject(expected);
  });

  it('deletes whatever the spec says: a dying volume grown outside (50 GiB, spec 10 GiB) is not held back', () => {
    const grownOutside = { ...created, observed: { sizeGiB: 50, volumeType: 'gp3' as const } };
    expect(planVolume(dying('available', grownOutside), [], NOW)).toMatchObject({ type: 'operation', op: 'delete-volume' });
    expect(planVolume(dying('error', grownOutside), [], NOW)).toMatchObject({ type: 'operation', op: 'delete-volume' });
  });
});

describe('planAttachment', () => {
  const ready = volume('available', created);

  it('attaches once the volume is available', () => {
    expect(planAttachment(attachment('pending'), ready)).toMatchObject({ type: 'operation', op: 'attach' });
    expect(planAttachment(attachment('pending'), volume('in-use', { ...created, spec: { ...ready.spec, multiAttach: true } }))).toMatchObject({
      type: 'operation',
      op: 'attach',
    });
  });

  it.each([
    ['no volume record', undefined, /waiting for volume record data-1/],
    // No passing state named: it changes without the attachment hearing of it.
    ['volume creating', volume('creating'), /^waiting for volume data-1 to become available$/],
    ['volume in error', volume('error', { status: { state: 'error', code: 'InvalidZone.NotFound', attempts: 1, updatedAt: T } }), /^volume data-1 is in error: InvalidZone\.NotFound; the attach waits until the volume is retried$/],
    ['volume dying', volume('available', { ...created, life: 'dying' }), /being deleted/],
    ['single-attach volume in use', volume('in-use', created), /detached from its other instance/],
  ] as const)('waits: %s', (_name, volumeRecord, reason) => {
    const decision = planAttachment(attachment('pending'), volumeRecord);
    expect(decision.type).toBe('wait');
    expect(decision.reason).toMatch(reason);
  });

  it.each([
    ['attaching', 'alive', {}, { type: 'operation', op: 'check-attachment' }],
    ['attached', 'alive', {}, { type: 'none' }],
    ['detaching', 'alive', {}, { type: 'operation', op: 'check-attachment' }],
    ['error', 'alive', {}, { type: 'none' }],
    ['detached', 'alive', {}, { type: 'remove' }],
    ['pending', 'dying', {}, { type: 'remove' }],
    ['attaching', 'dying', {}, { type: 'operation', op: 'check-attachment' }],
    ['attached', 'dying', {}, { type: 'operation', op: 'detach' }],
    ['detaching', 'dying', {}, { type: 'operation', op: 'check-attachment' }],
    ['error', 'dying', {}, { type: 'remove' }],
    ['error', 'dying', { device: '/dev/sdf' }, { type: 'operation', op: 'detach' }],
    // It kept its device (an attach whose answer was lost, or retried after an error): EC2 may have attached it after all.
    ['pending', 'alive', { device: '/dev/sdf' }, { type: 'operation', op: 'check-attachment' }],
    ['pending', 'dying', { device: '/dev/sdf' }, { type: 'operation', op: 'detach' }],
    // Force asked for during a detach under way: one forced DetachVolume, then its checks; ignored while alive.
    ['detaching', 'dying', { forceDetach: true }, { type: 'operation', op: 'detach', reason: 'dying; forcing the detach under way' }],
    ['detaching', 'dying', { forceDetach: true, forceDetachSentAt: T }, { type: 'operation', op: 'check-attachment' }],
    ['detaching', 'alive', { forceDetach: true }, { type: 'operation', op: 'check-attachment' }],
    ['attached', 'alive', { forceDetach: true }, { type: 'none' }],
  ] as const)('%s (%s %o) → %o', (state, life, extra, expected) => {
    expect(planAttachment(attachment(state, { life, ...extra }), ready)).toMatchObject(expected);
  });

  it('an attached attachment whose volume record no longer holds an EC2 volume (found gone) is looked at', () => {
    const gone = volume('error', { status: { state: 'error', code: 'InvalidVolume.NotFound', attempts: 1, updatedAt: T } });
    expect(planAttachment(attachment('attached', { device: '/dev/sdf' }), gone)).toEqual({
      type: 'operation',
      op: 'check-attachment',
      reason: 'volume data-1 no longer exists in EC2',
    });
    expect(planAttachment(attachment('attached', { device: '/dev/sdf', life: 'dying' }), gone)).toMatchObject({ type: 'operation', op: 'detach' });
  });

  describe('without its volume record (removed from the table)', () => {
    const leftAttached = /^volume record data-1 was removed from the table while this attachment may be attached: .*perhaps still attached to i-0123456789abcdef0( as \/dev\/sdf)?, and the reconciler reports it as leaked\. Deleting this attachment detaches from i-0123456789abcdef0 the EC2 volumes tagged with that id, then removes this record;/;
    const detachByTags = {
      type: 'operation',
      op: 'detach',
      reason: 'dying; volume record data-1 was removed from the table: detaching the EC2 volumes tagged with its id from i-0123456789abcdef0',
    };
    it.each([
      // Nothing can be attached: it waits for the record, or is removed when dying.
      ['pending', 'alive', {}, { type: 'wait', reason: expect.stringMatching(/^waiting for volume record data-1, which is not in the table/) }],
      ['error', 'alive', {}, { type: 'wait', reason: expect.stringMatching(/^volume record data-1 was removed from the table \(or not written yet\) after this attachment failed; nothing is attached/) }],
      ['pending', 'dying', {}, { type: 'remove', reason: 'never attached; removed without an EC2 call' }],
      ['error', 'dying', {}, { type: 'remove', reason: 'never attached; removed without an EC2 call' }],
      // EC2 may hold it attached: left as it is while alive; dying, the volumes its tags name are detached.
      ['pending', 'alive', { device: '/dev/sdf' }, { type: 'volume-record-removed', reason: expect.stringMatching(leftAttached) }],
      ['attaching', 'alive', { device: '/dev/sdf' }, { type: 'volume-record-removed', reason: expect.stringMatching(leftAttached) }],
      ['attached', 'alive', { device: '/dev/sdf' }, { type: 'volume-record-removed', reason: expect.stringMatching(leftAttached) }],
      ['error', 'alive', { device: '/dev/sdf' }, { type: 'volume-record-removed', reason: expect.stringMatching(leftAttached) }],
      ['pending', 'dying', { device: '/dev/sdf' }, detachByTags],
      ['attaching', 'dying', { device: '/dev/sdf' }, detachByTags],
      ['attached', 'dying', { device: '/dev/sdf' }, detachByTags],
      ['error', 'dying', { device: '/dev/sdf' }, detachByTags],
      // DetachVolume was accepted: its check looks for the volumes by their tags.
      ['detaching', 'dying', { device: '/dev/sdf' }, { type: 'operation', op: 'check-attachment' }],
      // Forced since: a detach of volumes found by their tags is never forced, so no second detach beside its checks.
      ['detaching', 'dying', { device: '/dev/sdf', forceDetach: true }, { type: 'operation', op: 'check-attachment' }],
      ['detached', 'dying', {}, { type: 'remove', reason: 'detached' }],
    ] as const)('%s (%s %o) → %o', (state, life, extra, expected) => {
      const record = attachment(state, { life, ...extra });
      expect(planAttachment(record, undefined)).toEqual(expected.type === 'operation' && !('reason' in expected) ? expect.objectContaining(expected) : expected);
    });

    it('names the device it may be attached as, when it has one', () => {
      expect(planAttachment(attachment('attaching'), undefined).reason).toContain('perhaps still attached to i-0123456789abcdef0, and');
      expect(planAttachment(attachment('attached', { device: '/dev/sdf' }), undefined).reason).toContain('perhaps still attached to i-0123456789abcdef0 as /dev/sdf, and');
    });

    it('written again since, the record is a new one: an attachment that has not changed since may be attached to the removed record\'s volume, one that has is not', () => {
      const later = '2026-01-01T01:00:00.000Z';
      const rewritten = volume('available', { ...created, ebsVolumeId: 'vol-2', createdAt: later });
      expect(planAttachment(attachment('attached', { device: '/dev/sdf' }), rewritten)).toMatchObject({ type: 'volume-record-removed' });
      expect(planAttachment(attachment('attaching', { device: '/dev/sdf' }), rewritten)).toMatchObject({ type: 'volume-record-removed' });
      // Dying, it detaches what its instance holds of the volumes tagged with the record's id: the new record's volume is attached there by no other record.
      expect(planAttachment(attachment('attached', { device: '/dev/sdf', life: 'dying' }), rewritten)).toEqual({
        type: 'operation',
        op: 'detach',
        reason: 'dying; volume record data-1 was removed from the table (and written again since): detaching the EC2 volumes tagged with its id from i-0123456789abcdef0',
      });
      // Attached (or retried) after the record was written again: its own volume.
      const since = { state: 'attached' as const, attempts: 0, updatedAt: '2026-01-01T01:00:05.000Z' };
      expect(planAttachment(attachment('attached', { device: '/dev/sdf', status: since }), rewritten)).toMatchObject({ type: 'none' });
      // Nothing attached: it attaches the new record's volume.
      expect(planAttachment(attachment('pending'), rewritten)).toMatchObject({ type: 'operation', op: 'attach' });
      // A record without a creation time (written straight into the table) is not told apart.
      expect(planAttachment(attachment('attached', { device: '/dev/sdf' }), { ...rewritten, createdAt: '' })).toMatchObject({ type: 'none' });
    });

    it('an attachment whose status says its volume record was removed stays so once the record is written again, until retried or deleted', () => {
      const said = { state: 'error' as const, code: 'VolumeRecordRemoved', message: 'volume record data-1 was removed', attempts: 0, updatedAt: '2026-01-01T02:00:00.000Z' };
      const rewritten = volume('available', { ...created, ebsVolumeId: 'vol-2', createdAt: '2026-01-01T01:00:00.000Z' });
      expect(planAttachment(attachment('error', { device: '/dev/sdf', status: said }), rewritten)).toMatchObject({ type: 'volume-record-removed' });
      expect(planAttachment(attachment('error', { device: '/dev/sdf', status: said, life: 'dying' }), rewritten)).toMatchObject({ type: 'operation', op: 'detach' });
    });

    it('its removal makes the attachments say what it leaves them, detaches or removes dying ones; those under way follow their own operations', () => {
      expect(affectedByVolumeRecordRemoval(attachment('attached', { device: '/dev/sdf' }), undefined)).toMatchObject({ type: 'volume-record-removed' });
      expect(affectedByVolumeRecordRemoval(attachment('pending'), undefined)).toMatchObject({ type: 'wait' });
      expect(affectedByVolumeRecordRemoval(attachment('pending', { life: 'dying' }), undefined)).toMatchObject({ type: 'remove' });
      expect(affectedByVolumeRecordRemoval(attachment('attached', { device: '/dev/sdf', life: 'dying' }), undefined)).toMatchObject({ type: 'operation', op: 'detach' });
      expect(affectedByVolumeRecordRemoval(attachment('attached', { device: '/dev/sdf', life: 'dying' }), volume('available', { ...created, createdAt: '2026-01-01T01:00:00.000Z' }))).toMatchObject({ type: 'operation', op: 'detach' });
      expect(affectedByVolumeRecordRemoval(attachment('detaching', { device: '/dev/sdf', life: 'dying' }), undefined)).toBeUndefined();
      // Written again in the meantime: an attachment that waits waits for the new record's volume.
      expect(affectedByVolumeRecordRemoval(attachment('pending'), volume('creating'))).toMatchObject({ type: 'wait', reason: 'waiting for volume data-1 to become available' });
      expect(affectedByVolumeRecordRemoval(attachment('pending'), volume('available', created))).toBeUndefined();
    });
  });
});

describe('releasedByVolume', () => {
  const volumes = {
    available: volume('available', created),
    creating: volume('creating'),
    error: volume('error', { status: { state: 'error', code: 'InternalError', attempts: 1, updatedAt: T } }),
    gone: volume('error', { status: { state: 'error', code: 'InvalidVolume.NotFound', attempts: 1, updatedAt: T } }),
    rewritten: volume('available', { ...created, createdAt: '2026-01-01T01:00:00.000Z' }),
  };
  const retrying = { state: 'pending' as const, code: 'InternalError', attempts: 1, updatedAt: T, nextAttemptAt: '2026-01-01T00:00:02.000Z' };

  it.each([
    ['pending', 'alive', {}, 'available', { type: 'operation', op: 'attach' }],
    ['pending', 'alive', { device: '/dev/sdf' }, 'available', { type: 'operation', op: 'check-attachment' }],
    ['pending', 'alive', {}, 'error', { type: 'wait' }],
    // Failed since it last waited: its own message retries it after its backoff.
    ['pending', 'alive', { status: retrying }, 'available', undefined],
    ['pending', 'alive', { device: '/dev/sdf', status: retrying }, 'available', undefined],
    ['pending', 'alive', { status: retrying }, 'creating', { type: 'wait' }],
    ['attaching', 'alive', {}, 'available', undefined],
    ['detaching', 'alive', {}, 'available', undefined],
    ['attached', 'alive', {}, 'available', undefined],
    ['error', 'alive', { device: '/dev/sdf' }, 'available', undefined],
    ['pending', 'dying', { device: '/dev/sdf' }, 'available', undefined],
    // Its volume was found gone from EC2: the attachment looks, and leaves attached.
    ['attached', 'alive', { device: '/dev/sdf' }, 'gone', { type: 'operation', op: 'check-attachment' }],
    // Attached to the volume of a record removed before this one was written: it says so.
    ['attached', 'alive', { device: '/dev/sdf' }, 'rewritten', { type: 'volume-record-removed' }],
  ] as const)('%s (%s %o), volume %s → %o', (state, life, extra, volumeState, expected) => {
    const decision = releasedByVolume(attachment(state, { life, ...extra }), volumes[volumeState]);
    if (expected) expect(decision).toMatchObject(expected);
    else expect(decision).toBeUndefined();
  });
});

describe('attach prerequisites', () => {
  const instance = (extra: Partial<ProviderInstance> = {}): ProviderInstance => ({
    instanceId: 'i-1',
    availabilityZone: 'eu-west-1a',
    state: 'running',
    deviceNames: ['/dev/xvda'],
    ...extra,
  });
  const ready = volume('available', created);

  it('holds for a running or stopped instance in the same AZ', () => {
    expect(attachPrerequisites(ready, instance(), 'i-1')).toEqual({ ok: true });
    expect(attachPrerequisites(ready, instance({ state: 'stopped' }), 'i-1')).toEqual({ ok: true });
  });

  it('waits for a missing or starting instance', () => {
    expect(attachPrerequisites(ready, undefined, 'i-1')).toMatchObject({ ok: false, terminal: false, code: 'InvalidInstanceID.NotFound' });
    expect(attachPrerequisites(ready, instance({ state: 'pending' }), 'i-1')).toMatchObject({ ok: false, terminal: false });
  });

  it('stops on a wrong AZ or a terminated instance', () => {
    expect(attachPrerequisites(ready, instance({ availabilityZone: 'eu-west-1b' }), 'i-1')).toMatchObject({
      ok: false,
      terminal: true,
      code: 'InvalidVolume.ZoneMismatch',
    });
    expect(attachPrerequisites(ready, instance({ state: 'terminated' }), 'i-1')).toMatchObject({ ok: false, terminal: true });
  });
});

describe('planAttachment: a dying pending attachment that never sent AttachVolume', () => {
  const dyingPending = attachment('pending', { life: 'dying' });
  const removed = { type: 'remove', reason: 'never attached; removed without an EC2 call' };
  const look = {
    type: 'operation',
    op: 'check-attachment',
    reason: 'dying; volume data-1 may be attached to i-0123456789abcdef0 outside the system: looking before removing',
  };
  it.each([
    // The record says what EC2 holds: nothing is attached.
    ['available', 'alive', created, {}, removed],
    ['deleting', 'dying', created, {}, removed],
    // No EC2 volume yet: nothing can be attached.
    ['creating', 'alive', {}, {}, removed],
    ['pending', 'alive', {}, {}, removed],
    // In use, or in a state the record does not say EC2 holds: it may be attached here in the console.
    ['in-use', 'alive', created, {}, look],
    ['in-use', 'dying', created, {}, look],
    ['creating', 'alive', created, {}, look],
    ['modifying', 'alive', created, {}, look],
    ['pending', 'alive', created, {}, look],
    ['error', 'alive', created, {}, look],
    // A Multi-Attach volume in use may be attached to this instance among others.
    ['in-use', 'alive', created, { multiAttach: true }, look],
    ['available', 'alive', created, { multiAttach: true }, removed],
  ] as const)('volume %s (%s %o, spec %o) → %o', (state, life, extra, spec, expected) => {
    const record = volume(state, { life, ...extra, spec: { sizeGiB: 10, volumeType: 'io2', iops: 1000, availabilityZone: 'eu-west-1a', ...spec } });
    expect(planAttachment(dyingPending, record)).toEqual(expected);
    // One in error without a device never sent AttachVolume either: it looks (or not) alike.
    expect(planAttachment(attachment('error', { life: 'dying' }), record)).toEqual(expected);
  });

  it('alive, or dying with a device kept, it is planned as before', () => {
    const inUse = volume('in-use', created);
    expect(planAttachment(attachment('pending'), inUse)).toMatchObject({ type: 'wait' });
    expect(planAttachment(attachment('pending', { life: 'dying', device: '/dev/sdf' }), inUse)).toMatchObject({ type: 'operation', op: 'detach' });
    expect(planAttachment(attachment('error', { life: 'dying', device: '/dev/sdf' }), inUse)).toMatchObject({ type: 'operation', op: 'detach' });
  });
});

describe('planAttachment: Multi-Attach as the volume was created', () => {
  const io2 = { sizeGiB: 10, volumeType: 'io2' as const, iops: 1000, availabilityZone: 'eu-west-1a' };
  const createdAs = (multiAttach: boolean) => ({
    ...created,
    observed: { sizeGiB: 10, volumeType: 'io2' as const, iops: 1000, tags: {} },
    createRequest: { clientToken: 'ebsp-data-1-g1', availabilityZone: 'eu-west-1a', spec: { ...io2, ...(multiAttach ? { multiAttach: true } : {}) } },
  });

  it('a single-attach volume in use whose spec asks for Multi-Attach afterwards (refused: EBS fixes it at creation) still waits for the detach', () => {
    const inUse = volume('in-use', { ...createdAs(false), spec: { ...io2, multiAttach: true } });
    expect(planAttachment(attachment('pending'), inUse)).toEqual({ type: 'wait', reason: 'waiting for volume data-1 to be detached from its other instance' });
  });

  it('a volume created Multi-Attach whose spec says otherwise afterwards attaches beside its other instance', () => {
    const inUse = volume('in-use', { ...createdAs(true), spec: { ...io2, multiAttach: false } });
    expect(planAttachment(attachment('pending'), inUse)).toMatchObject({ type: 'operation', op: 'attach' });
  });
});
