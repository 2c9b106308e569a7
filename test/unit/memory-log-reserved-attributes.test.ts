/**
 * The recording log refuses a line whose attributes the deployed logger would drop
 * (`RESERVED_LOG_KEYS`), naming every such attribute, and keeps nothing of it.
 */
import { describe, expect, it } from 'vitest';
import { RecordingLog } from '../../lib/memory/log.js';

describe('RecordingLog: a line with attributes the deployed logger drops', () => {
  it('names every reserved attribute of the line in its error and records nothing', () => {
    const log = new RecordingLog();
    expect(() => log.info('volume created', { message: 'x', volumeId: 'data-1', timestamp: 1 })).toThrow(
      new Error('log line "volume created" has attributes named message, timestamp, which the deployed logger drops'),
    );
    expect(log.entries).toEqual([]);
  });
});
