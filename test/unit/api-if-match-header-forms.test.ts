/** How an If-Match header is read, and what its 412 names for a record written without a generation. */
import { describe, expect, it } from 'vitest';
import { parseIfMatch, requirePrecondition } from '../../lib/api/preconditions.js';
import { ApiProblem } from '../../lib/api/problem.js';
import { INSTANCE_A, serviceWorld } from './api-fixtures.js';

describe('If-Match header forms', () => {
  it('reads `*` with the whitespace around a field value as any record', () => {
    for (const header of [' *', '* ', '\t* ']) expect(parseIfMatch(header), JSON.stringify(header)).toEqual({ header, any: true, tags: [] });
  });

  it('reads a quoted value holding a character an entity tag cannot hold as malformed, not as a tag', () => {
    // RFC 9110 §8.8.3: etagc is "!", "#" to "~" and obs-text; a space, a control character or a character beyond obs-text is none.
    for (const header of ['"a b"', '"1", "a\tb"', '"\u0001"', '"\u20ac"']) {
      expect(parseIfMatch(header), JSON.stringify(header)).toEqual({ header, any: false, tags: [], fault: 'malformed' });
    }
    expect(parseIfMatch('"a!#~\u00ff"').tags).toEqual(['"a!#~\u00ff"']);
  });
});

describe('a stale If-Match on an attachment written without a generation', () => {
  it('is 412 naming generation 1, the generation such a record is at', async () => {
    const { store, service } = serviceWorld();
    await service.createVolume({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
    store.putRaw({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A, life: 'alive' });
    const writes = store.writes;
    const refused = await service.deleteAttachment('data-01', INSTANCE_A, parseIfMatch('"5"')).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ApiProblem);
    const problem = refused as ApiProblem;
    expect(problem.status).toBe(412);
    expect(problem.detail).toBe(
      `attachment of data-01 to ${INSTANCE_A} is at generation 1 (ETag "1"), not the one If-Match "5" names; nothing was changed: read it again and reapply the change`,
    );
    expect(problem.headers).toEqual({ ETag: '"1"' });
    expect(store.writes).toBe(writes);
  });

  it('names generation 1 for a record given without one, as its tag does', () => {
    let thrown: unknown;
    try {
      requirePrecondition(parseIfMatch('"5"'), 'the record', { createdAt: '' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiProblem);
    expect((thrown as ApiProblem).detail).toMatch(/^the record is at generation 1 \(ETag "1"\), not the one If-Match "5" names;/);
  });
});
