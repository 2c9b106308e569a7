/**
 * `npm run bench:cpu -- --endpoint …` after a run on the same emulator that ended before its
 * lifecycles did and left its tables and queues (kept, or stopped by a signal before it could delete
 * them): the next run measures its own lifecycles only. The earlier run's records, their
 * stream and their messages are not handled, so no EBS volume is made for them.
 */
import { DescribeVolumesCommand } from '@aws-sdk/client-ec2';
import { expect, it } from 'vitest';
import { measureFunctionCpu } from '../../bench/cpu.js';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

describeWithMoto('function CPU benchmark after an unfinished run on the same emulator', (endpoint) => {
  it('handles none of the lifecycles the earlier run left open', async () => {
    // Given up on at once and kept: its lifecycle's records stay, never handled.
    const earlier = await measureFunctionCpu({ lifecycles: 1, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 0, keep: true });
    expect(earlier).toMatchObject({ lifecycles: 1, converged: 0 });

    const report = await measureFunctionCpu({ lifecycles: 1, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 60_000 });
    expect(report.converged).toBe(1);
    // Its own lifecycle's volume was deleted, and the earlier run's lifecycle got none.
    const { ec2 } = motoClients(endpoint());
    const { Volumes } = await ec2.send(new DescribeVolumesCommand({ Filters: [{ Name: `tag:${OWNERSHIP_TAGS.owner}`, Values: ['ebs-provisioner-cpu'] }] }));
    expect(Volumes?.filter((v) => v.State !== 'deleted').map((v) => v.VolumeId)).toEqual([]);
  }, 120_000);
});
