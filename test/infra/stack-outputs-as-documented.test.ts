/**
 * The stack's outputs the README names (Deploy, Commands: "The stack outputs …"): the template has
 * exactly those, under their names.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeSynthesized, synthesize, type Synthesized } from './synth.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesize({}, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

/** The backticked names of the README's sentence listing the outputs, its parenthesis on `ApiUrl` left out. */
function documentedOutputs(): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const start = readme.indexOf('The stack outputs ');
  expect(start).toBeGreaterThanOrEqual(0);
  const sentence = readme.slice(start, readme.indexOf('. ', start)).replace(/\([^()]*\)/g, '');
  return [...sentence.matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]!);
}

describe('stack outputs', () => {
  it('are the ones the README lists, and no other', () => {
    const documented = documentedOutputs();
    expect(documented).toContain('ApiUrl');
    expect(Object.keys(s.template.findOutputs('*')).sort()).toEqual([...documented].sort());
  });
});
