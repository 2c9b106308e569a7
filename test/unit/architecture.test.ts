import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
/** Folders that hold the engine: plain TypeScript, no AWS packages. */
const ENGINE_DIRS = ['lib/domain', 'lib/engine', 'lib/memory'];
const FORBIDDEN = /^(@aws-sdk\/|@smithy\/|aws-sdk$|@aws-lambda-powertools\/|aws-cdk-lib|@middy\/)/;

function sourceFiles(dir: string): string[] {
  const abs = join(root, dir);
  let entries: string[];
  try {
    entries = readdirSync(abs);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(abs, name);
    if (statSync(path).isDirectory()) return sourceFiles(relative(root, path));
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports, static or dynamic. */
export function importedModules(source: string): string[] {
  const specifiers: string[] = [];
  const pattern = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g;
  for (const match of source.matchAll(pattern)) specifiers.push((match[1] ?? match[2] ?? match[3])!);
  return specifiers;
}

describe('engine boundaries', () => {
  it('finds the import forms it guards against', () => {
    const sample = [
      "import { EC2Client } from '@aws-sdk/client-ec2';",
      "import type { X } from \"@smithy/types\";",
      "export * from '@aws-lambda-powertools/logger';",
      "const m = await import('aws-cdk-lib');",
      "import './side-effect.js';",
    ].join('\n');
    expect(importedModules(sample)).toEqual([
      '@aws-sdk/client-ec2',
      '@smithy/types',
      '@aws-lambda-powertools/logger',
      'aws-cdk-lib',
      './side-effect.js',
    ]);
  });

  it('no engine file imports an AWS package', () => {
    // Each folder holds files: one moved or renamed away would otherwise be guarded no more, in silence.
    for (const dir of ENGINE_DIRS) expect(sourceFiles(dir).length, dir).toBeGreaterThan(0);
    const files = ENGINE_DIRS.flatMap(sourceFiles);
    const offenders = files.flatMap((file) =>
      importedModules(readFileSync(file, 'utf8'))
        .filter((spec) => FORBIDDEN.test(spec))
        .map((spec) => `${relative(root, file)} imports ${spec}`),
    );
    expect(offenders).toEqual([]);
  });
});
