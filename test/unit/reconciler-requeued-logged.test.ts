/**
 * Each record a pass re-enqueues is logged as `re-enqueued`, with its key and the reason (the
 * README's wording for, say, a volume being created for long: `creating since <its start>;
 * looked at once per pass`).
 */
import { describe, expect, it } from 'vitest';
import { RecordingLog } from '../../lib/memory/index.js';
import { MINUTE, reconcilerWorld, volume } from './reconciler-fixtures.js';

describe('reconciler log of what it re-enqueues', () => {
  it('logs each re-enqueued record with its key and reason', async () => {
    const log = new RecordingLog();
    const { clock, store, reconciler, owned } = reconcilerWorld({ log });
    const { ebsVolumeId } = await owned('making');
    const at = new Date(clock.now()).toISOString();
    await store.create(volume('making', at, { ebsVolumeId, status: { state: 'creating', attempts: 0, updatedAt: at, operationStartedAt: at } }));
    await clock.advance(10 * MINUTE);

    const report = await reconciler.run();

    const reason = `creating since ${at}; looked at once per pass`;
    expect(report.requeued).toEqual([{ key: 'volume/making', reason }]);
    expect(log.entries.filter((entry) => entry.message === 're-enqueued')).toEqual([{ level: 'info', message: 're-enqueued', attributes: { key: 'volume/making', reason } }]);
  });
});
