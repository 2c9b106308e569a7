/** `npm start`'s default code path: the memory backend in real time, driven through the HTTP API. */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { RecordingLog } from '../../lib/memory/log.js';
import type { ProgressCheck } from '../../lib/engine/config.js';

const quick: ProgressCheck = { firstSeconds: 1, growth: 0.5, maxSeconds: 1 };

describe('local runtime, memory backend', () => {
  let runtime: LocalRuntime;
  const log = new RecordingLog();

  beforeAll(async () => {
    runtime = await startLocalRuntime({
      backend: 'memory',
      port: 0,
      demoInstances: 1,
      log,
      pollIdleMs: 50,
      engineConfig: {
        progressChecks: { 'create-volume': quick, 'check-volume': quick, 'modify-volume': quick, 'tag-volume': quick, 'delete-volume': quick, attach: quick, 'check-attachment': quick, detach: quick },
        backoff: { baseSeconds: 1, capSeconds: 2 },
      },
    });
  });
  afterAll(async () => {
    await runtime?.stop();
  });

  it('creates and attaches a volume, logging each status change as one line', async () => {
    const [instanceId] = runtime.instanceIds;
    expect(instanceId).toMatch(/^i-[0-9a-f]{17}$/);
    const created = await fetch(`${runtime.apiUrl}/volumes`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ volumeId: 'smoke', spec: { sizeGiB: 8, volumeType: 'gp3' }, attachTo: { instanceId } }),
    });
    expect(created.status).toBe(201);
    const deadline = Date.now() + 20_000;
    let state: string | undefined;
    while (Date.now() < deadline) {
      const body = (await (await fetch(`${runtime.apiUrl}/volumes/smoke`)).json()) as { attachments: { status: { state: string } }[] };
      state = body.attachments[0]?.status.state;
      if (state === 'attached') break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(state).toBe('attached');
    // The stream poller logs the change that the API already shows a moment later.
    const attachedLine = /^attachment\/smoke\/i-[0-9a-f]+ {2}attaching → attached {2}\/dev\/sdf$/;
    const inUseLine = 'volume/smoke  available → in-use  vol-00000000000000001';
    const logged = () => log.entries.some((e) => attachedLine.test(e.message)) && log.entries.some((e) => e.message === inUseLine);
    for (let i = 0; i < 50 && !logged(); i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = log.entries.map((e) => e.message);
    expect(lines).toEqual(expect.arrayContaining(['volume/smoke  creating → available  vol-00000000000000001', expect.stringMatching(attachedLine)]));
    // Each status change once, one after the other: no change left out, none logged twice.
    const changes = (prefix: string) => lines.filter((line) => line.startsWith(prefix)).map((line) => line.slice(prefix.length).split('  ')[0]);
    expect(changes('volume/smoke  ')).toEqual(['new → pending', 'pending → creating', 'creating → available', 'available → in-use']);
    expect(changes(`attachment/smoke/${instanceId}  `)).toEqual(['new → pending', 'pending → attaching', 'attaching → attached']);
  }, 30_000);

  it('gives attaches racing to one instance different devices, as EC2 refuses a device in use', async () => {
    const [instanceId] = runtime.instanceIds;
    const ids = ['race-a', 'race-b', 'race-c'];
    const responses = await Promise.all(
      ids.map((volumeId) =>
        fetch(`${runtime.apiUrl}/volumes`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ volumeId, spec: { sizeGiB: 8, volumeType: 'gp3' }, attachTo: { instanceId } }),
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual([201, 201, 201]);
    const deadline = Date.now() + 25_000;
    let devices: (string | undefined)[] = [];
    while (Date.now() < deadline) {
      const bodies = await Promise.all(
        ids.map(async (id) => (await (await fetch(`${runtime.apiUrl}/volumes/${id}`)).json()) as { attachments: { device?: string; status: { state: string } }[] }),
      );
      devices = bodies.map((b) => (b.attachments[0]?.status.state === 'attached' ? b.attachments[0].device : undefined));
      if (devices.every(Boolean)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(devices.every(Boolean)).toBe(true);
    expect(new Set(devices).size).toBe(ids.length);
    // The smoke volume holds one device too; EC2's own view agrees with the records.
    const [instance] = await runtime.provider.describeInstances([instanceId!]);
    expect(instance?.deviceNames).toEqual(expect.arrayContaining(devices as string[]));
  }, 30_000);
});

describe('local runtime, reconciler timer', () => {
  // The reconciler's interval timer is faked (nothing else: the API and the pollers run in real
  // time), so its ticks come when the test says, not after a guessed real wait.
  afterEach(() => {
    vi.useRealTimers();
  });
  /** Lets every pending callback and promise run (setImmediate is left real). */
  const settle = async (rounds = 20) => {
    for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it('runs one pass at a time, as the deployed function does, and stops only once the pass under way has ended', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const log = new RecordingLog();
    const runtime = await startLocalRuntime({ backend: 'memory', port: 0, demoInstances: 0, log, pollIdleMs: 50, reconcileEveryMs: 50 });
    // The first table scan of a pass waits until released: ticks meanwhile must not start another pass.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let scansStarted = 0;
    const list = runtime.store.list.bind(runtime.store);
    runtime.store.list = async (options) => {
      if (++scansStarted === 1) await released;
      return list(options);
    };
    const passesEnded = () => log.entries.filter((entry) => entry.message === 'reconciled').length;
    const ticksSkipped = () => log.entries.filter((entry) => entry.message === 'reconciler pass still under way; this tick starts none').length;
    try {
      expect(scansStarted).toBe(0);
      await vi.advanceTimersByTimeAsync(50);
      await settle();
      expect(scansStarted).toBe(1);
      // Ten more ticks while the pass is held: each starts none.
      await vi.advanceTimersByTimeAsync(500);
      await settle();
      expect(ticksSkipped()).toBe(10);
      expect(scansStarted).toBe(1);
      expect(passesEnded()).toBe(0);

      let stopped = false;
      const stopping = runtime.stop().then(() => {
        stopped = true;
      });
      await settle(200);
      expect(stopped).toBe(false);
      release();
      await stopping;
      expect(passesEnded()).toBe(1);
      // Stopped, the timer starts no pass.
      const scansOfThePass = scansStarted;
      await vi.advanceTimersByTimeAsync(500);
      await settle();
      expect(scansStarted).toBe(scansOfThePass);
      expect(passesEnded()).toBe(1);
    } finally {
      release();
      await runtime.stop().catch(() => undefined);
    }
  }, 20_000);
});
