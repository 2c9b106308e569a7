/**
 * Each of the four functions is built from its own entry point, functions/<name>.ts
 * (infra/constructs/functions.ts): the source map of its bundle names that file and no other
 * function's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTION_NAMES } from '../../infra/constructs/functions.js';
import { removeSynthesized, resourceId, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize();
}, 120_000);
afterAll(removeSynthesized);

const capitalized = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** The entry points (functions/*.ts) the source map of function `name`'s bundle names. */
function entriesOf(name: string): string[] {
  const code = s.json.Resources[resourceId(s.json, 'AWS::Lambda::Function', `Functions${capitalized(name)}`)]!.Properties!.Code as { S3Key: string };
  const map = JSON.parse(readFileSync(join(s.outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`, 'index.mjs.map'), 'utf8')) as { sources: string[] };
  // The entry points' folder, not lib/functions.
  return map.sources.flatMap((source) => /(?:^|\/)(?<!lib\/)functions\/(\w+)\.ts$/.exec(source)?.[1] ?? []);
}

describe.each(FUNCTION_NAMES)('%s function', (name) => {
  it('is bundled from its own entry point, functions/<name>.ts, alone among them', () => {
    expect(entriesOf(name)).toEqual([name]);
  });
});
