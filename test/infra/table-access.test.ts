/**
 * The record table grants follow the code: the store methods each function's code calls, and the
 * DynamoDB commands the DynamoDB record store sends. Reads the sources; no synthesis.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FUNCTION_NAMES, type FunctionName } from '../../infra/constructs/functions.js';
import { STORE_METHOD_ACTIONS, STORE_METHODS_USED, tableActions, type StoreMethod } from '../../infra/constructs/table-access.js';

const source = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The TypeScript sources directly in `dir`. */
const sourcesIn = (dir: string) =>
  readdirSync(new URL(`../../${dir}`, import.meta.url))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${dir}/${file}`);

/** The folders of the modules the executor is made of, beside lib/engine/executor.ts. */
const EXECUTOR_DIRS = ['lib/engine/execution', 'lib/engine/operations'];

/** The source files whose record store calls each function makes. */
const SOURCES: Record<FunctionName, string[]> = {
  api: ['lib/api/service.ts', 'lib/api/handler.ts', 'functions/api.ts'],
  watcher: ['lib/engine/watcher.ts', 'lib/engine/without-call.ts', 'lib/engine/rejection.ts', 'lib/functions/handlers.ts'],
  executor: ['lib/engine/executor.ts', ...EXECUTOR_DIRS.flatMap(sourcesIn), 'lib/engine/without-call.ts', 'lib/engine/rejection.ts', 'lib/functions/handlers.ts'],
  reconciler: ['lib/engine/reconciler.ts', 'lib/functions/handlers.ts'],
};

/** Store methods called in `text` (`store.update(`, `this.deps.store.update<R>(` …). */
function storeCalls(text: string): string[] {
  return [...text.matchAll(/\bstore\s*\.\s*(\w+)\s*[<(]/g)].map((match) => match[1]!);
}

describe('record table access', () => {
  it('finds the call forms it reads', () => {
    expect(storeCalls('await this.deps.store.update<R>(key); store.get(k); this.store\n  .list({})')).toEqual(['update', 'get', 'list']);
  });

  it('reads every source that calls the record store: none is left out of a function\'s', () => {
    const read = new Set(Object.values(SOURCES).flat());
    // Folders within them included: a module moved into one still calls the store for its function.
    const callers = ['lib/api', 'lib/engine', 'lib/functions', 'functions'].flatMap((dir) =>
      readdirSync(new URL(`../../${dir}`, import.meta.url), { recursive: true, encoding: 'utf8' })
        .filter((file) => file.endsWith('.ts'))
        .map((file) => `${dir}/${file}`)
        .filter((path) => storeCalls(source(path)).length > 0),
    );
    expect(callers).toContain('lib/engine/executor.ts');
    expect(callers.filter((path) => !read.has(path))).toEqual([]);
  });

  it.each(FUNCTION_NAMES)('%s: granted for exactly the store methods its code calls', (name) => {
    const called = new Set(SOURCES[name].flatMap((path) => storeCalls(source(path))));
    for (const method of called) expect(Object.keys(STORE_METHOD_ACTIONS), method).toContain(method);
    expect([...called].sort()).toEqual([...STORE_METHODS_USED[name]].sort());
  });

  it('each store method\'s action is a command DynamoRecordStore sends, and it sends no command without a store method', () => {
    const store = source('lib/aws/dynamodb-store.ts');
    const commands = new Set([...store.matchAll(/new (\w+)Command\(/g)].map((match) => match[1]!));
    // Document client commands and the DynamoDB actions they are authorized as.
    const ACTION_OF: Record<string, string> = {
      Get: 'dynamodb:GetItem',
      BatchGet: 'dynamodb:BatchGetItem',
      Query: 'dynamodb:Query',
      Scan: 'dynamodb:Scan',
      Put: 'dynamodb:PutItem',
      Update: 'dynamodb:UpdateItem',
      Delete: 'dynamodb:DeleteItem',
    };
    for (const command of commands) expect(ACTION_OF, command).toHaveProperty(command);
    const sent = new Set([...commands].map((command) => ACTION_OF[command]));
    expect(new Set(Object.values(STORE_METHOD_ACTIONS).map((m) => m.action))).toEqual(sent);
  });

  it('splits the actions between the table and the instance index', () => {
    expect(tableActions(['attachmentsOfInstance', 'get', 'update', 'claim'] as StoreMethod[])).toEqual({
      table: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      index: ['dynamodb:Query'],
    });
    expect(tableActions(STORE_METHODS_USED.reconciler)).toEqual({ table: ['dynamodb:BatchGetItem', 'dynamodb:Scan'], index: [] });
  });
});
