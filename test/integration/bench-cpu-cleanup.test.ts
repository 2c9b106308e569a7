/**
 * `npm run bench:cpu -- --endpoint …` deletes what its run made in the emulator when it ends:
 * its two tables, its two queues and its instances, whether its lifecycles ended or it gave up on
 * them, or it was stopped by Ctrl-C; asked to keep them, it leaves them there.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DeleteTableCommand, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { DescribeInstancesCommand } from '@aws-sdk/client-ec2';
import { ListQueuesCommand } from '@aws-sdk/client-sqs';
import { expect, it } from 'vitest';
import { measureFunctionCpu } from '../../bench/cpu.js';
import { createMotoBackend } from '../../lib/local/moto-backend.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

const PREFIX = 'ebs-provisioner-cpu-bench-';

/** The benchmark runs' tables and queues in the emulator, and the states of its instances. */
async function leftInEmulator(endpoint: string) {
  const { dynamo, sqs, ec2 } = motoClients(endpoint);
  const { TableNames = [] } = await dynamo.send(new ListTablesCommand({}));
  const { QueueUrls = [] } = await sqs.send(new ListQueuesCommand({ QueueNamePrefix: PREFIX }));
  const { Reservations = [] } = await ec2.send(new DescribeInstancesCommand({}));
  return {
    tables: TableNames.filter((name) => name.startsWith(PREFIX)),
    queues: QueueUrls,
    instanceStates: [...new Set(Reservations.flatMap((r) => r.Instances ?? []).map((i) => i.State?.Name))],
  };
}

describeWithMoto('function CPU benchmark: what its run leaves in the emulator', (endpoint) => {
  it('deletes its tables and queues and terminates its instances once its lifecycles have ended', async () => {
    const report = await measureFunctionCpu({ lifecycles: 1, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 60_000 });
    expect(report.converged).toBe(1);
    expect(await leftInEmulator(endpoint())).toEqual({ tables: [], queues: [], instanceStates: ['terminated'] });
  }, 90_000);

  it('deletes them too when it gives up on its lifecycles', async () => {
    const report = await measureFunctionCpu({ lifecycles: 1, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 0 });
    expect(report.converged).toBe(0);
    expect(await leftInEmulator(endpoint())).toEqual({ tables: [], queues: [], instanceStates: ['terminated'] });
  }, 60_000);

  it('leaves them when asked to keep them', async () => {
    await measureFunctionCpu({ lifecycles: 1, endpoint: endpoint(), requestsPerClient: 1, timeoutMs: 0, keep: true });
    const left = await leftInEmulator(endpoint());
    expect(left.tables).toHaveLength(2);
    expect(left.queues).toHaveLength(2);
    expect(left.instanceStates).toContain('running');
  }, 60_000);
});

const root = fileURLToPath(new URL('../..', import.meta.url));

describeWithMoto('npm run bench:cpu stopped by Ctrl-C', (endpoint) => {
  it('stops its run, deletes what it made and exits 130', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/cpu-main.ts', '--endpoint', endpoint(), '--lifecycles', '20', '--timeout', '600'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      // Under way: its table is there (its stop signals are handled from its start).
      const { dynamo } = motoClients(endpoint());
      for (let waited = 0; ; waited += 250) {
        const { TableNames = [] } = await dynamo.send(new ListTablesCommand({}));
        if (TableNames.some((name) => name.startsWith(PREFIX))) break;
        if (waited > 60_000) throw new Error(`no table of the run after 60 s; stderr: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      child.kill('SIGINT');
      expect(await exited, stderr).toBe(130);
    } finally {
      child.kill('SIGKILL');
    }
    expect(stderr).toContain('stopped by SIGINT; nothing measured');
    expect(await leftInEmulator(endpoint())).toEqual({ tables: [], queues: [], instanceStates: ['terminated'] });
  }, 120_000);
});

describeWithMoto('the moto backend deleting what it made', (endpoint) => {
  it('deletes every other resource when one cannot be deleted, then names the one left', async () => {
    const backend = await createMotoBackend({ endpoint: endpoint(), ownerTagValue: 'cleanup', tableName: `${PREFIX}gone`, queueName: `${PREFIX}gone` });
    try {
      await backend.launchInstances(1);
      // Deleted by someone else first: its deletion fails.
      await backend.clients.dynamo.send(new DeleteTableCommand({ TableName: backend.tableName }));
      await expect(backend.deleteCreated()).rejects.toThrow(`could not delete table ${PREFIX}gone (`);
      expect(await leftInEmulator(endpoint())).toMatchObject({ tables: [], queues: [] });
      expect((await leftInEmulator(endpoint())).instanceStates).not.toContain('running');
    } finally {
      await backend.stop();
    }
  }, 60_000);
});
