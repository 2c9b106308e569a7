/** docs/local.md: `--demo-instances N` launches N EC2 instances, so there is something to attach to. */
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/index.js';

describe('the local runtime on the memory backend', () => {
  let runtime: LocalRuntime | undefined;
  afterEach(async () => {
    await runtime?.stop();
    runtime = undefined;
  });

  it('launches as many demo instances as asked, each one EC2 describes', async () => {
    runtime = await startLocalRuntime({ backend: 'memory', port: 0, demoInstances: 3, log: new RecordingLog(), pollIdleMs: 5 });
    expect(runtime.instanceIds).toHaveLength(3);
    expect(new Set(runtime.instanceIds).size).toBe(3);
    const described = await runtime.provider.describeInstances(runtime.instanceIds);
    expect(described.map((i) => i.instanceId).sort()).toEqual([...runtime.instanceIds].sort());
  });

  it('launches none when asked for none', async () => {
    runtime = await startLocalRuntime({ backend: 'memory', port: 0, demoInstances: 0, log: new RecordingLog(), pollIdleMs: 5 });
    expect(runtime.instanceIds).toEqual([]);
  });
});
