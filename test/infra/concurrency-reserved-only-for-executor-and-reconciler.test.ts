/**
 * The stack reserves concurrency for the executor (`executorMaxConcurrency`) and the reconciler (1)
 * only, as the README's deployment prerequisites say: the api and the watcher run in the account's
 * unreserved pool, where a reservation would cap them (a throttled API, a watcher behind its stream).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSynthesized, resourceId, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
let scaled: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
  scaled = synthesize({ executorMaxConcurrency: 10 }, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

const reserved = (json: Synthesized['json'], id: string) => json.Resources[resourceId(json, 'AWS::Lambda::Function', `Functions${id}`)]!.Properties!.ReservedConcurrentExecutions;

describe('reserved concurrency', () => {
  it('none for the api and the watcher', () => {
    for (const synthesized of [s, scaled]) {
      expect(reserved(synthesized.json, 'Api')).toBeUndefined();
      expect(reserved(synthesized.json, 'Watcher')).toBeUndefined();
    }
  });

  it('executorMaxConcurrency for the executor, one for the reconciler, whatever the executor\'s', () => {
    expect([reserved(s.json, 'Executor'), reserved(s.json, 'Reconciler')]).toEqual([5, 1]);
    expect([reserved(scaled.json, 'Executor'), reserved(scaled.json, 'Reconciler')]).toEqual([10, 1]);
  });
});
