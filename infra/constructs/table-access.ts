/**
 * Least-privilege access to the record table: the DynamoDB actions each record store method sends
 * (DynamoRecordStore, lib/aws/dynamodb-store.ts), and the methods each function's code calls, so
 * that every function is granted exactly the actions it sends and nothing else.
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { RecordStore } from '../../lib/engine/ports.js';
import { TABLE } from '../../lib/settings.js';
import type { FunctionName } from './functions.js';

export type StoreMethod = keyof RecordStore;

/** The action each store method sends, and whether on the instance index rather than the table. */
export const STORE_METHOD_ACTIONS: Readonly<Record<StoreMethod, { action: string; onIndex?: true }>> = {
  get: { action: 'dynamodb:GetItem' },
  getMany: { action: 'dynamodb:BatchGetItem' },
  // A volume's attachments share its partition key: a query of the table itself.
  attachmentsOfVolume: { action: 'dynamodb:Query' },
  attachmentsOfInstance: { action: 'dynamodb:Query', onIndex: true },
  list: { action: 'dynamodb:Scan' },
  create: { action: 'dynamodb:PutItem' },
  update: { action: 'dynamodb:UpdateItem' },
  remove: { action: 'dynamodb:DeleteItem' },
  claim: { action: 'dynamodb:UpdateItem' },
  release: { action: 'dynamodb:UpdateItem' },
};

/**
 * The store methods each function's code calls: the API service (lib/api/service.ts), the watcher,
 * the executor and the reconciler (lib/engine/watcher.ts, executor.ts with the modules under
 * execution/ and operations/, and reconciler.ts, with without-call.ts for the first two). The API
 * never deletes a record (the watcher and the executor do, once a deletion is carried out); the
 * reconciler only reads.
 */
export const STORE_METHODS_USED: Readonly<Record<FunctionName, readonly StoreMethod[]>> = {
  api: ['get', 'getMany', 'attachmentsOfVolume', 'attachmentsOfInstance', 'list', 'create', 'update'],
  watcher: ['get', 'attachmentsOfVolume', 'update', 'remove'],
  executor: ['getMany', 'attachmentsOfVolume', 'attachmentsOfInstance', 'claim', 'release', 'update', 'remove'],
  reconciler: ['list', 'getMany'],
};

/** The actions `methods` send, on the table and on the instance index, each sorted and once. */
export function tableActions(methods: readonly StoreMethod[]): { table: string[]; index: string[] } {
  const on = (index: boolean) => [...new Set(methods.map((method) => STORE_METHOD_ACTIONS[method]).filter((m) => (m.onIndex === true) === index).map((m) => m.action))].sort();
  return { table: on(false), index: on(true) };
}

/** Grants `grantee` exactly the actions of the store methods `name` calls: on the table, and on the instance index by its name. */
export function grantTableAccess(table: dynamodb.ITable, grantee: iam.IGrantable, name: FunctionName): void {
  const { table: onTable, index: onIndex } = tableActions(STORE_METHODS_USED[name]);
  iam.Grant.addToPrincipal({ grantee, actions: onTable, resourceArns: [table.tableArn] });
  if (onIndex.length > 0) iam.Grant.addToPrincipal({ grantee, actions: onIndex, resourceArns: [`${table.tableArn}/index/${TABLE.instanceIndex.name}`] });
}
