/** Stream changes for the watcher tests, as DynamoDB Streams delivers them: each under the key of the record it carries. */
import type { RecordChange } from '../../lib/engine/watcher.js';
import { attachmentKey, volumeKey } from './engine-fixtures.js';

/** What a change needs of a record to name its key: hand-written items included. */
type Keyed = { kind: string; volumeId: string; instanceId?: string };

function keyOf(record: Keyed): RecordChange['key'] {
  return record.kind === 'volume' ? volumeKey(record.volumeId) : attachmentKey(record.volumeId, record.instanceId);
}

/** The INSERT of `record`. */
export function insert<T extends Keyed>(record: T, id = 'c1'): RecordChange {
  return { id, eventName: 'INSERT', key: keyOf(record), newRecord: record };
}

/** A MODIFY of `before` into `after`. */
export function modify<T extends Keyed>(before: T, after: unknown, id = 'c1'): RecordChange {
  return { id, eventName: 'MODIFY', key: keyOf(before), oldRecord: before, newRecord: after };
}

/** The REMOVE of `record`. */
export function remove<T extends Keyed>(record: T, id = 'c1'): RecordChange {
  return { id, eventName: 'REMOVE', key: keyOf(record), oldRecord: record };
}
