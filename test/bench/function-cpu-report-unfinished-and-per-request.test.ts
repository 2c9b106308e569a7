/**
 * What `npm run bench:cpu` prints beside its per-record figures: no per-lifecycle columns when
 * some lifecycles did not end (their work would be spread over lifecycles that did not all
 * happen), and each client's own mean CPU time of one request.
 */
import { describe, expect, it } from 'vitest';
import { formatCpuReport, type CpuReport } from '../../bench/cpu.js';

const REPORT: CpuReport = {
  lifecycles: 4,
  converged: 4,
  watcher: { invocations: 2, records: 40, cpuMs: 120 },
  executor: { invocations: 3, records: 20, cpuMs: 100 },
  perRequestMs: { ec2DescribeVolumes: 1.11, dynamodbGetItem: 2.22, sqsSendMessageBatch: 3.33 },
  wallMs: 4000,
};

describe('the function CPU report', () => {
  it('gives per-lifecycle figures only when every lifecycle ended', () => {
    expect(formatCpuReport(REPORT)).toContain('| watcher | 512 MiB | 2 | 40 | 120 | 3.00 | 30.0 |');
    const unfinished = formatCpuReport({ ...REPORT, converged: 3 });
    expect(unfinished).toContain('| watcher | 512 MiB | 2 | 40 | 120 | 3.00 | n/a | n/a | n/a |');
    expect(unfinished).toContain('| executor | 1024 MiB | 3 | 20 | 100 | 5.00 | n/a | n/a | n/a |');
  });

  it('gives each client its own CPU time per request', () => {
    expect(formatCpuReport(REPORT)).toContain('EC2 DescribeVolumes 1.11 ms, DynamoDB GetItem 2.22 ms, SQS SendMessageBatch (10) 3.33 ms');
  });
});
