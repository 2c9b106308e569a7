/**
 * Each function's bundle holds every package it uses, the AWS SDK included (infra/constructs/functions.ts):
 * the functions run the client versions they are tested with, not whatever the Lambda runtime ships.
 * What a bundle still names at run time is Node's own modules, and optional add-ons the project
 * does not install (the SDK's SigV4a signers, which it loads only for a request that needs SigV4a).
 * Each is built from its own entry point, functions/<name>.ts: its bundle's source map names that
 * file and no other function's.
 */
import { builtinModules, createRequire } from 'node:module';
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

/** A file of function `name`'s bundle (`index.mjs`, `index.mjs.map`), as synthesis wrote it into the cloud assembly. */
function bundleFile(name: string, file: string): string {
  const code = s.json.Resources[resourceId(s.json, 'AWS::Lambda::Function', `Functions${capitalized(name)}`)]!.Properties!.Code as { S3Key: string };
  return readFileSync(join(s.outdir, `asset.${code.S3Key.replace(/\.zip$/, '')}`, file), 'utf8');
}

/** The entry points (functions/*.ts) the source map of function `name`'s bundle names. */
function entriesOf(name: string): string[] {
  const map = JSON.parse(bundleFile(name, 'index.mjs.map')) as { sources: string[] };
  // The entry points' folder, not lib/functions.
  return map.sources.flatMap((source) => /(?:^|\/)(?<!lib\/)functions\/(\w+)\.ts$/.exec(source)?.[1] ?? []);
}

/** The modules a minified ESM bundle loads: its static and dynamic imports and its require calls. */
function loadedModules(bundle: string): string[] {
  const patterns = [/\bfrom\s*["']([^"']+)["']/g, /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g, /(?:^|[;}])\s*import\s*["']([^"']+)["']/gm, /\brequire\(\s*["']([^"']+)["']\s*\)/g];
  return [...new Set(patterns.flatMap((pattern) => [...bundle.matchAll(pattern)].map((match) => match[1]!)))].sort();
}

const builtin = (specifier: string) => specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0]!) || builtinModules.includes(specifier);

/** Whether `specifier` names a package installed for the project, which bundling could have taken in. */
const projectRequire = createRequire(new URL('../../package.json', import.meta.url));
function installed(specifier: string): boolean {
  try {
    projectRequire.resolve(specifier);
    return true;
  } catch (error) {
    // A package whose exports offer no entry for require is installed all the same.
    return (error as { code?: string }).code !== 'MODULE_NOT_FOUND';
  }
}

describe.each(FUNCTION_NAMES)('%s function', (name) => {
  it('loads no installed package at run time, the AWS SDK included: only Node\'s own modules and optional add-ons', () => {
    const modules = loadedModules(bundleFile(name, 'index.mjs'));
    // The banner's createRequire comes from Node's module.
    expect(modules).toContain('module');
    const packages = modules.filter((specifier) => !builtin(specifier));
    expect(packages.filter(installed)).toEqual([]);
  });

  it('is bundled from its own entry point, functions/<name>.ts, alone among them', () => {
    expect(entriesOf(name)).toEqual([name]);
  });
});
