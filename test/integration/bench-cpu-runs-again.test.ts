/**
 * `npm run bench:cpu -- --endpoint …` against an emulator an earlier run used: a run that gave up
 * on its lifecycles and kept its tables leaves their records there, and the next run starts
 * lifecycles of its own in tables and queues of its own.
 */
import { expect, it } from 'vitest';
import { measureFunctionCpu } from '../../bench/cpu.js';
import { describeWithMoto } from '../support/moto.js';

describeWithMoto('function CPU benchmark run again on the same emulator', (endpoint) => {
  it('starts lifecycles of its own beside those an earlier run left open', async () => {
    for (const run of [1, 2]) {
      // Given up on at once and kept: the lifecycle's records stay in the table.
      const report = await measureFunctionCpu({ lifecycles: 1, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 1, keep: true });
      expect(report, `run ${run}`).toMatchObject({ lifecycles: 1, converged: 0 });
    }
  }, 120_000);
});
