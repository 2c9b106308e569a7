/**
 * The functions' own CPU time, per stream record and per message, which the scale simulation
 * charges each invocation (`CPU_MS_PER_ITEM` in bench/provisioner.ts): N lifecycles (create,
 * attach, detach, delete) through the real watcher and executor handlers, with the real SDK
 * clients, against moto_server. This process's CPU time is measured around each handler call;
 * reading the stream and the queue is left out, as in AWS the Lambda service does it. Also the
 * CPU time of one request per AWS client, which is where most of it goes.
 *
 * Lambda gives a function memory / 1769 MiB of a vCPU, so CPU-bound work takes longer at less
 * memory but costs the same GB-seconds at any size up to 1769 MiB (`lambdaCpuCost` in sim/lambda.ts).
 */
import type { SQSRecord } from 'aws-lambda';
import { newAttachmentRecord } from '../lib/api/service.js';
import { keyOf, type VolumeRecord } from '../lib/domain/records.js';
import { createExecutorHandler, createWatcherHandler } from '../lib/functions/handlers.js';
import { LOCAL_AVAILABILITY_ZONE, createMotoBackend } from '../lib/local/moto-backend.js';
import { SystemClock } from '../lib/memory/clock.js';
import { RecordingLog } from '../lib/memory/log.js';
import type { Metrics } from '../lib/engine/ports.js';
import { EXECUTOR, OWNERSHIP_TAGS, WATCHER } from '../lib/settings.js';
import { lambdaCpuCost } from './sim/lambda.js';
import { US_EAST_1_PRICES } from './sim/pricing.js';

export interface FunctionCpu {
  invocations: number;
  /** Messages or stream records handed to the function. */
  records: number;
  cpuMs: number;
}

export interface CpuReport {
  lifecycles: number;
  converged: number;
  watcher: FunctionCpu;
  executor: FunctionCpu;
  /** Mean CPU time of one request, per client (`requestsPerClient` sequential requests each). */
  perRequestMs: { ec2DescribeVolumes: number; dynamodbGetItem: number; sqsSendMessageBatch: number };
  wallMs: number;
}

const noMetrics: Metrics = { operation: () => undefined, count: () => undefined };

function cpuNow(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

async function timed<T>(into: FunctionCpu, records: number, run: () => Promise<T>): Promise<T> {
  const before = cpuNow();
  try {
    return await run();
  } finally {
    into.cpuMs += cpuNow() - before;
    into.invocations++;
    into.records += records;
  }
}

/**
 * Runs `lifecycles` lifecycles (a whole number, at least 1) through the handlers against moto
 * (started here unless `endpoint` is given) and measures their CPU time. One invocation runs at a
 * time, each waiting for EC2 rate tokens as deployed, so this takes about a second per lifecycle;
 * it gives up on lifecycles still open after `timeoutMs` (default 60 s + 2 s per lifecycle), judged
 * between invocations: one under way (an executor's waiting for tokens, up to its function's
 * timeout) ends first. Each run makes its own tables and queues
 * (`ebs-provisioner-cpu-bench-<run>…`) and instances, and deletes them when it ends, also when it
 * fails or gives up, unless `keep` is set (a run's error is thrown rather than a failure to delete;
 * a failure to delete after a run that did not fail is thrown). EBS volumes of lifecycles given up
 * on stay. `signal` stops the run between invocations, as the deadline does, and it then rejects
 * with the signal's reason, having deleted what it made.
 */
export async function measureFunctionCpu(options: {
  lifecycles: number;
  endpoint?: string;
  requestsPerClient?: number;
  timeoutMs?: number;
  /** Leave the run's tables, queues and instances in the emulator, e.g. to look at what a run left open. */
  keep?: boolean;
  /** Stops the run (Ctrl-C): between invocations, measuring nothing more. */
  signal?: AbortSignal;
}): Promise<CpuReport> {
  if (!Number.isInteger(options.lifecycles) || options.lifecycles < 1) {
    throw new RangeError(`lifecycles must be a whole number of at least 1, got ${options.lifecycles}`);
  }
  const started = performance.now();
  // Tables and queues of its own, so a shared emulator's local runtime is left alone, and of this
  // run's own: an earlier run against the same emulator that was kept, or killed before it could
  // delete them, left its records, their stream and their messages, which this run would
  // otherwise handle and count.
  const run = Date.now().toString(36);
  const backend = await createMotoBackend({
    ownerTagValue: 'ebs-provisioner-cpu',
    tableName: `ebs-provisioner-cpu-bench-${run}`,
    queueName: `ebs-provisioner-cpu-bench-${run}`,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
  });
  let failed = true;
  try {
    const deps = { ...backend.adapters, clock: new SystemClock(), metrics: noMetrics, log: new RecordingLog() };
    const watch = createWatcherHandler(deps);
    const execute = createExecutorHandler(deps);
    const watcher: FunctionCpu = { invocations: 0, records: 0, cpuMs: 0 };
    const executor: FunctionCpu = { invocations: 0, records: 0, cpuMs: 0 };

    const instanceIds = await backend.launchInstances(Math.max(1, Math.ceil(options.lifecycles / 20)));
    const now = new Date().toISOString();
    const volumes: VolumeRecord[] = Array.from({ length: options.lifecycles }, (_, i) => ({
      kind: 'volume',
      volumeId: `v-cpu-${run}-${String(i).padStart(5, '0')}`,
      spec: { sizeGiB: 8, volumeType: 'gp3', availabilityZone: LOCAL_AVAILABILITY_ZONE },
      life: 'alive',
      generation: 1,
      status: { state: 'pending', attempts: 0, updatedAt: now },
      version: 1,
      createdAt: now,
    }));
    const attachments = volumes.map((volume, i) => newAttachmentRecord(volume, instanceIds[i % instanceIds.length]!, now));
    // The client's writes (what POST /volumes with attachTo writes): not the functions' work.
    for (const [i, volume] of volumes.entries()) {
      await backend.adapters.store.create(volume);
      await backend.adapters.store.create(attachments[i]!);
    }

    const released = new Set<string>();
    const deadline = Date.now() + (options.timeoutMs ?? 60_000 + 2_000 * options.lifecycles);
    let open = volumes.length;
    while (open > 0 && Date.now() < deadline && !options.signal?.aborted) {
      const changes = await backend.stream.read();
      for (let i = 0; i < changes.length; i += WATCHER.batchSize) {
        const batch = changes.slice(i, i + WATCHER.batchSize);
        await timed(watcher, batch.length, () => watch({ Records: batch }));
      }
      const messages: SQSRecord[] = [];
      while (messages.length < EXECUTOR.batchSize) {
        const got = await backend.messages.receive(EXECUTOR.batchSize - messages.length);
        if (got.length === 0) break;
        messages.push(...got);
      }
      if (messages.length > 0) {
        const { batchItemFailures } = await timed(executor, messages.length, () =>
          execute({ Records: messages }, { getRemainingTimeInMillis: () => EXECUTOR.timeoutSeconds * 1000 }),
        );
        const failed = new Set(batchItemFailures.map((f) => f.itemIdentifier));
        await backend.messages.delete(messages.filter((m) => !failed.has(m.messageId)));
      }
      // The client asks for removal once it sees the volume attached (not timed either).
      for (const record of await backend.adapters.store.getMany(attachments.map(keyOf))) {
        if (record.status.state !== 'attached' || released.has(record.volumeId)) continue;
        released.add(record.volumeId);
        await backend.adapters.store.update({ kind: 'volume', volumeId: record.volumeId }, { life: 'dying' });
      }
      open = (await backend.adapters.store.getMany(volumes.map(keyOf))).length;
      if (changes.length === 0 && messages.length === 0) await new Promise((resolve) => setTimeout(resolve, 200));
    }

    options.signal?.throwIfAborted();
    const requests = options.requestsPerClient ?? 100;
    const perRequest = async (call: () => Promise<unknown>) => {
      await call();
      const before = cpuNow();
      for (let i = 0; i < requests; i++) await call();
      return (cpuNow() - before) / requests;
    };
    const { provider, store, queue } = backend.adapters;
    // One volume to describe, removed afterwards.
    const probe = await provider.createVolume({
      clientToken: 'ebs-provisioner-cpu-probe',
      availabilityZone: LOCAL_AVAILABILITY_ZONE,
      spec: volumes[0]!.spec,
      tags: { [OWNERSHIP_TAGS.owner]: 'ebs-provisioner-cpu' },
    });
    const checks = Array.from({ length: 10 }, (_, i) => ({
      message: { op: 'check-volume' as const, key: { kind: 'volume' as const, volumeId: `v-cpu-absent-${i}` }, reason: 'cpu benchmark' },
      delaySeconds: 0,
    }));
    const perRequestMs = {
      ec2DescribeVolumes: await perRequest(() => provider.describeVolumes([probe.ebsVolumeId])),
      dynamodbGetItem: await perRequest(() => store.get(keyOf(volumes[0]!))),
      sqsSendMessageBatch: await perRequest(() => queue.send(checks)),
    };
    await provider.deleteVolume(probe.ebsVolumeId);
    failed = false;
    return { lifecycles: volumes.length, converged: volumes.length - open, watcher, executor, perRequestMs, wallMs: performance.now() - started };
  } finally {
    try {
      if (!options.keep) {
        // After a failed run its own error is the one to see, not a failure to delete.
        await backend.deleteCreated().catch((error: unknown) => {
          if (!failed) throw error;
        });
      }
    } finally {
      await backend.stop();
    }
  }
}

/** The report as printed: per lifecycle, per record, and at the deployed memory sizes. */
export function formatCpuReport(report: CpuReport): string {
  const lines: string[] = [];
  const per = (fn: FunctionCpu, n: number) => (n > 0 ? fn.cpuMs / n : 0);
  lines.push(`lifecycles: ${report.converged} of ${report.lifecycles} converged (${(report.wallMs / 1000).toFixed(1)} s of wall time)`);
  lines.push('');
  lines.push('| function | memory | invocations | records | CPU ms | CPU ms per record | CPU ms per lifecycle | GB-s per 1000 lifecycles | $ per 1000 lifecycles |');
  lines.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  // Per lifecycle only when all of them ended: the work of unfinished ones would be spread wrongly.
  const complete = report.converged === report.lifecycles;
  for (const [name, fn, memoryMiB] of [['watcher', report.watcher, WATCHER.memoryMiB], ['executor', report.executor, EXECUTOR.memoryMiB]] as const) {
    const perLifecycle = per(fn, report.lifecycles);
    const { gbSeconds } = lambdaCpuCost(perLifecycle * 1000, memoryMiB);
    const lifecycleColumns = complete
      ? `${perLifecycle.toFixed(1)} | ${gbSeconds.toFixed(1)} | ${(gbSeconds * US_EAST_1_PRICES.lambdaArmPerGbSecond).toFixed(5)}`
      : 'n/a | n/a | n/a';
    lines.push(`| ${name} | ${memoryMiB} MiB | ${fn.invocations} | ${fn.records} | ${fn.cpuMs.toFixed(0)} | ${per(fn, fn.records).toFixed(2)} | ${lifecycleColumns} |`);
  }
  lines.push('');
  lines.push('CPU per request (mean of sequential requests, this process):');
  lines.push(`  EC2 DescribeVolumes ${report.perRequestMs.ec2DescribeVolumes.toFixed(2)} ms, DynamoDB GetItem ${report.perRequestMs.dynamodbGetItem.toFixed(2)} ms, SQS SendMessageBatch (10) ${report.perRequestMs.sqsSendMessageBatch.toFixed(2)} ms`);
  const batch = lambdaCpuCost(per(report.executor, report.executor.records) * EXECUTOR.batchSize, EXECUTOR.memoryMiB);
  lines.push(
    `A full executor batch (${EXECUTOR.batchSize} messages) at ${EXECUTOR.memoryMiB} MiB (${batch.vcpu.toFixed(2)} vCPU): ~${(batch.wallMs / 1000).toFixed(1)} s of CPU-bound time.`,
  );
  return lines.join('\n');
}
