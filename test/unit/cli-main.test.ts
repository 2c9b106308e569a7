import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AttachmentRecord, RecordKey, VolumeRecord, VolumeState } from '../../lib/domain/records.js';
import { entityTag } from '../../lib/api/preconditions.js';
import { createApiHandler } from '../../lib/api/handler.js';
import { startApiServer, type RunningApiServer } from '../../lib/api/node-server.js';
import { MemoryRecordStore } from '../../lib/memory/store.js';
import { MemoryRateBudget } from '../../lib/memory/rate-budget.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { EXIT, runCli, WRITE_ATTEMPTS, type CliIo } from '../../cli/main.js';
import { INSTANCE_A, INSTANCE_B, ManualClock, sequentialIds } from './api-fixtures.js';

const volumeKey = (volumeId: string): RecordKey => ({ kind: 'volume', volumeId });

/** The SDK's default credential chain, as the CLI signs with it when given no credentials: counts each time it resolves them. */
const defaultChain = vi.hoisted(() => ({ resolutions: 0 }));
vi.mock('@aws-sdk/credential-providers', () => ({
  // Like the SDK's, each chain keeps the credentials it resolved.
  fromNodeProviderChain: () => {
    let resolved: { accessKeyId: string; secretAccessKey: string } | undefined;
    return async () => {
      if (!resolved) {
        defaultChain.resolutions++;
        resolved = { accessKeyId: 'AKIDDEFAULT', secretAccessKey: 'default-secret' };
      }
      return resolved;
    };
  },
}));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  json: unknown;
}

describe('CLI against the API over HTTP', () => {
  let store: MemoryRecordStore;
  let clock: ManualClock;
  let server: RunningApiServer;
  /** Requests the CLI sent, as the fetch it used saw them. */
  let sent: Array<{ url: string; method: string; headers: Record<string, string> }>;
  /** Runs before each request reaches the API: lets a test change the world between the CLI's requests. */
  let beforeSend: ((request: { url: string; method: string }) => Promise<void>) | undefined;

  beforeAll(async () => {
    // One server for the file; each test gets a fresh store behind it.
    server = await startApiServer((event, context) => currentHandler(event, context));
  });
  afterAll(async () => {
    await server.close();
  });

  let currentHandler: ReturnType<typeof createApiHandler>;
  beforeEach(() => {
    store = new MemoryRecordStore();
    clock = new ManualClock();
    currentHandler = createApiHandler({ store, clock, newVolumeId: sequentialIds() });
    sent = [];
    beforeSend = undefined;
  });

  async function cli(...argv: string[]): Promise<Run> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: (text) => void (stdout += text),
      stderr: (text) => void (stderr += text),
      env: { EBS_PROVISIONER_ENDPOINT: server.url },
      isTTY: false,
      clock,
      credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' }),
      fetch: async (input, init) => {
        const headers: Record<string, string> = {};
        new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
        sent.push({ url: String(input), method: init?.method ?? 'GET', headers });
        await beforeSend?.({ url: String(input), method: init?.method ?? 'GET' });
        return fetch(input, init);
      },
    };
    const code = await runCli(argv, io);
    let json: unknown;
    try {
      json = JSON.parse(stdout);
    } catch {
      json = undefined;
    }
    return { code, stdout, stderr, json };
  }

  // As the system writes them: a volume past creating (and not in error) holds its EC2 volume's id.
  const setVolumeState = (volumeId: string, state: VolumeState, extra: Partial<VolumeRecord['status']> = {}) =>
    store.update<VolumeRecord>(volumeKey(volumeId), {
      status: { state, attempts: 0, updatedAt: new Date(clock.now()).toISOString(), ...extra },
      ...(['available', 'in-use', 'modifying', 'deleting'].includes(state) ? { ebsVolumeId: 'vol-0123456789abcdef0' } : {}),
    });

  describe('volumes', () => {
    it('creates, shows and lists a volume', async () => {
      const created = await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--type', 'gp3', '--id', 'data-01', '--tag', 'team=storage', '--tag', 'env=dev');
      expect(created.code).toBe(EXIT.ok);
      expect(created.stdout).toContain('Created: data-01');
      expect(created.stdout).toMatch(/State:\s+pending/);
      expect(created.stdout).toMatch(/Tags:\s+team=storage, env=dev/);

      const again = await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--tag', 'team=storage', '--tag', 'env=dev');
      expect(again.code).toBe(EXIT.ok);
      expect(again.stdout).toContain('Already exists (same spec): data-01');

      const shown = await cli('-o', 'json', 'volumes', 'get', 'data-01');
      expect(shown.json).toMatchObject({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', tags: { team: 'storage', env: 'dev' } } });

      const listed = await cli('volumes', 'list');
      expect(listed.stdout.split('\n')[0]).toMatch(/^VOLUME\s+STATE\s+LIFE\s+SIZE\s+AZ\s+EBS VOLUME$/);
      expect(listed.stdout).toMatch(/data-01\s+pending\s+alive\s+20 GiB gp3/);
    });

    it('says how long a pending call waits in line for EC2\'s tokens, in the details, attachments and progress lines', async () => {
      const rateBudget = new MemoryRateBudget();
      currentHandler = createApiHandler({ store, clock, newVolumeId: sequentialIds(), rateBudget });
      // A burst elsewhere booked 200 CreateVolume tokens: a new call would start at 21.2 s.
      await rateBudget.take('CreateVolume', 200, DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume, clock.now(), 3_600_000);
      const created = await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      expect(created.stdout).toMatch(/State:\s+pending, ~22 s in line for CreateVolume\n/);
      // The attachment waits for its volume, which its message says; no line of its own.
      expect(created.stdout).toMatch(new RegExp(`data-01\\s+${INSTANCE_A}\\s+pending\\s+alive`));
      const shown = await cli('-o', 'json', 'volumes', 'get', 'data-01');
      expect(shown.json).toMatchObject({ rateWait: { action: 'CreateVolume', seconds: 22 } });
      clock.onSleep = async () => {
        if (clock.now() - Date.parse('2026-01-01T00:00:00.000Z') >= 22_000) await setVolumeState('data-01', 'creating');
      };
      const run = await cli('wait', 'data-01', '--state', 'creating', '--interval', '10');
      expect(run.stderr.trim().split('\n')).toEqual([
        'volume data-01: pending, ~22 s in line for CreateVolume',
        'volume data-01: pending, ~12 s in line for CreateVolume',
        'volume data-01: pending, ~2 s in line for CreateVolume',
        'done: volume data-01 is creating (after 30s)',
      ]);
    });

    it('sends an option given empty (a variable that expanded to nothing) for the API to refuse, never dropping it', async () => {
      const cases: Array<[string[], string]> = [
        [['--az', 'us-east-1a', '--id', ''], 'volumeId'],
        [['--az', 'us-east-1a', '--snapshot', ''], 'spec.snapshotId'],
        [['--az', 'us-east-1a', '--encrypted', '--kms-key', ''], 'spec.kmsKeyId'],
        [['--az', 'us-east-1a', '--attach', ''], 'attachTo.instanceId'],
        [['--attach', INSTANCE_A, '--device', ''], 'attachTo.device'],
        [['--az', ''], 'spec.availabilityZone'],
        [['--near', ''], 'spec.placementInstanceId'],
      ];
      for (const [options, path] of cases) {
        const run = await cli('volumes', 'create', '--size', '20', ...options);
        expect(run.code, options.join(' ')).toBe(EXIT.failed);
        // The API's field, and the option that set it.
        expect(run.stderr, options.join(' ')).toContain(`  ${path} (${options.at(-2)}): `);
      }
      expect(await store.list({ limit: 100 })).toMatchObject({ items: [] });

      const unattached = await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--device', '');
      expect(unattached.code).toBe(EXIT.usage);
      expect(unattached.stderr).toBe('error: --device needs --attach\n');
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      const attached = await cli('volumes', 'attach', 'data-01', INSTANCE_B, '--device', '');
      expect(attached.code).toBe(EXIT.failed);
      expect(attached.stderr).toContain('  device (--device): ');
      expect(await store.get({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_B })).toBeUndefined();
    });

    it('follows cursors when listing, up to --limit', async () => {
      for (let i = 1; i <= 5; i++) await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '10', '--id', `v${i}`);
      const all = await cli('-o', 'json', 'volumes', 'list');
      expect((all.json as { items: unknown[] }).items).toHaveLength(5);
      const some = await cli('-o', 'json', 'volumes', 'list', '--limit', '3');
      const first = some.json as { items: Array<{ volumeId: string }>; cursor?: string };
      expect(first.items).toHaveLength(3);
      // The rest is reached from where --limit stopped, not by listing everything again.
      expect(first.cursor).toEqual(expect.any(String));
      const rest = await cli('-o', 'json', 'volumes', 'list', '--cursor', first.cursor!);
      const second = rest.json as { items: Array<{ volumeId: string }>; cursor?: string };
      expect([...first.items, ...second.items].map((v) => v.volumeId).sort()).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);
      expect(second).not.toHaveProperty('cursor');
      expect((await cli('volumes', 'list', '--limit', '3')).stdout).toContain(`More volumes: continue with --cursor ${first.cursor}`);
      await setVolumeState('v2', 'error', { message: 'boom' });
      const errors = await cli('-o', 'json', 'volumes', 'list', '--state', 'error');
      expect((errors.json as { items: Array<{ volumeId: string }> }).items.map((v) => v.volumeId)).toEqual(['v2']);
    });

    it('creates with --attach in the instance AZ and lists the instance attachments', async () => {
      const created = await cli('-o', 'json', 'volumes', 'create', '--size', '20', '--attach', INSTANCE_A, '--device', '/dev/sdf');
      expect(created.code).toBe(EXIT.ok);
      expect(created.json).toMatchObject({
        volumeId: 'vol-rec-1',
        spec: { placementInstanceId: INSTANCE_A },
        attachments: [{ instanceId: INSTANCE_A, requestedDevice: '/dev/sdf' }],
      });
      const listed = await cli('instances', 'attachments', INSTANCE_A);
      expect(listed.stdout).toMatch(new RegExp(`vol-rec-1\\s+${INSTANCE_A}\\s+pending\\s+alive\\s+/dev/sdf`));
    });

    it('lists with --instance the volumes with an attachment to the instance, attached or not yet, as its help says', async () => {
      await cli('volumes', 'create', '--size', '20', '--attach', INSTANCE_A, '--id', 'data-01');
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-02');
      const listed = await cli('-o', 'json', 'volumes', 'list', '--instance', INSTANCE_A);
      expect((listed.json as { items: Array<{ volumeId: string }> }).items.map((v) => v.volumeId)).toEqual(['data-01']);
      expect((await cli('instances', 'attachments', INSTANCE_A)).stdout).toMatch(new RegExp(`data-01\\s+${INSTANCE_A}\\s+pending`));
      expect((await cli('volumes', 'list', '--help')).stdout).toContain('only volumes with an attachment to this instance');
    });

    it('retries an attachment that ended in error', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await cli('volumes', 'attach', 'data-01', INSTANCE_B);
      const nothingToRetry = await cli('volumes', 'retry-attachment', 'data-01', INSTANCE_B);
      expect(nothingToRetry.code).toBe(EXIT.failed);
      expect(nothingToRetry.stderr).toContain('not in error');
      await store.update<AttachmentRecord>(
        { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_B },
        { status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', message: 'wrong AZ', attempts: 1, updatedAt: new Date(clock.now()).toISOString() } },
      );
      const retriedAttachment = await cli('volumes', 'retry-attachment', 'data-01', INSTANCE_B);
      expect(retriedAttachment.code).toBe(EXIT.ok);
      expect(retriedAttachment.stdout).toMatch(new RegExp(`^Retrying: data-01 → ${INSTANCE_B}: pending`));
      expect((await store.get({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_B }))?.generation).toBe(2);
      const absent = await cli('volumes', 'retry-attachment', 'data-01', INSTANCE_A);
      expect(absent.code).toBe(EXIT.failed);
      expect(absent.stderr).toContain('does not exist');
    });

    it('tag writes only if the volume is as read (If-Match), and reads again after another client changed it', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--tag', 'env=dev');
      let raced = false;
      beforeSend = async ({ method }) => {
        if (method !== 'PATCH' || raced) return;
        raced = true; // another client sets a tag between this command's read and its write
        const { spec } = (await store.get(volumeKey('data-01'))) as VolumeRecord;
        await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...spec, tags: { env: 'dev', owner: 'ops' } }, generation: 2 });
      };
      const tagged = await cli('-o', 'json', 'volumes', 'tag', 'data-01', '--tag', 'team=db', '--untag', 'env');
      expect(tagged.code).toBe(EXIT.ok);
      expect(tagged.json).toMatchObject({ generation: 3, spec: { tags: { owner: 'ops', team: 'db' } } });
      expect((tagged.json as { spec: { tags: object } }).spec.tags).toEqual({ owner: 'ops', team: 'db' });
      const patches = sent.filter((request) => request.method === 'PATCH');
      const created = new Date((await store.get(volumeKey('data-01')))!.createdAt);
      expect(patches.map((request) => request.headers['if-match'])).toEqual([1, 2].map((generation) => entityTag({ generation, createdAt: created.toISOString() })));
    });

    it('tag gives up with a clear error, changing nothing, when the volume changes before every write', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      let generation = 1;
      beforeSend = async ({ method }) => {
        if (method !== 'PATCH') return;
        const { spec } = (await store.get(volumeKey('data-01'))) as VolumeRecord;
        await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...spec, sizeGiB: spec.sizeGiB + 1 }, generation: ++generation });
      };
      const tagged = await cli('volumes', 'tag', 'data-01', '--tag', 'team=db');
      expect(tagged.code).toBe(EXIT.failed);
      expect(tagged.stderr).toBe(
        `error: volume data-01 was changed by another client during each of ${WRITE_ATTEMPTS} attempts; its tags were not changed: run the command again\n`,
      );
      expect(sent.filter((request) => request.method === 'PATCH')).toHaveLength(WRITE_ATTEMPTS);
      expect((await store.get(volumeKey('data-01')) as VolumeRecord).spec.tags).toBeUndefined();
    });

    it('grow never takes back a larger size another client asked for: it writes only the volume as read (If-Match)', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '10', '--id', 'data-01');
      let raced = false;
      beforeSend = async ({ method }) => {
        if (method !== 'PATCH' || raced) return;
        raced = true; // another client grows it to 13 GiB between this command's read and its write
        const { spec } = (await store.get(volumeKey('data-01'))) as VolumeRecord;
        await store.update<VolumeRecord>(volumeKey('data-01'), { spec: { ...spec, sizeGiB: 13 }, generation: 2 });
      };
      const grown = await cli('-o', 'json', 'volumes', 'grow', 'data-01', '--size', '11');
      expect(grown.code).toBe(EXIT.ok);
      expect(grown.json).toMatchObject({ generation: 2, spec: { sizeGiB: 13 } });
      expect(grown.stderr).toBe('volume data-01 already asks for 13 GiB; left as it is (volumes modify --size asks for less before the volume is made)\n');
      expect(sent.filter((request) => request.method === 'PATCH')).toHaveLength(1);
      expect(((await store.get(volumeKey('data-01'))) as VolumeRecord).spec.sizeGiB).toBe(13);
      const larger = await cli('-o', 'json', 'volumes', 'grow', 'data-01', '--size', '20');
      expect(larger.json).toMatchObject({ generation: 3, spec: { sizeGiB: 20 } });
    });

    it("names the option beside each field of the API's refusal of volumes modify, grow, tag, attach and list", async () => {
      await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--near', INSTANCE_A);
      const modify = await cli('volumes', 'modify', 'data-01', '--near', 'bad', '--snapshot', 'bad');
      expect(modify.code).toBe(EXIT.failed);
      expect(modify.stderr.split('\n').slice(1, 3).sort()).toEqual([
        '  placementInstanceId (--near): must be an EC2 instance id like i-0123456789abcdef0',
        '  snapshotId (--snapshot): must be a snapshot id like snap-0123456789abcdef0',
      ]);
      const grow = await cli('volumes', 'grow', 'data-01', '--size', '70000');
      expect(grow.stderr.split('\n')[1]).toMatch(/^ {2}sizeGiB \(--size\): /);
      const tag = await cli('volumes', 'tag', 'data-01', '--tag', 'aws:team=db');
      expect(tag.stderr.split('\n')[1]).toBe('  tags["aws:team"] (--tag): tag keys starting with "aws:" are reserved');
      const attach = await cli('volumes', 'attach', 'data-01', INSTANCE_B, '--device', 'sdf');
      expect(attach.stderr.split('\n')[1]).toBe('  device (--device): must be a device name EC2 takes for a volume: /dev/sd[b-z], /dev/xvd[b-z], /dev/xvd[a-c][a-z] or /dev/xvdd[a-x], like /dev/sdf or /dev/xvdba');
      expect((await cli('volumes', 'list', '--instance', 'bad')).stderr.split('\n')[1]).toBe('  instanceId (--instance): must be an EC2 instance id like i-0123456789abcdef0');
      expect((await cli('volumes', 'list', '--cursor', 'bad')).stderr.split('\n')[1]).toBe('  cursor (--cursor): is not a cursor this API issued');
    });

    it('names --clear-iops and --clear-throughput when a change of type leaves a setting the new type does not take', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--iops', '4000', '--throughput', '250', '--id', 'data-01');
      const run = await cli('volumes', 'modify', 'data-01', '--type', 'gp2');
      expect(run.code).toBe(EXIT.failed);
      expect(run.stderr).toBe(
        'error: 400 The request is not valid: the change to volume data-01 makes an invalid spec\n' +
          '  iops (--iops): gp2 volumes take no IOPS setting\n' +
          '  throughput (--throughput): gp2 volumes take no throughput setting\n' +
          'hint: --iops <n> sets the IOPS, --clear-iops drops the setting; --throughput <MiBps> sets the throughput, --clear-throughput drops the setting\n',
      );
      // Another refusal gets no such hint; in JSON, stderr holds the problem document alone.
      expect((await cli('volumes', 'modify', 'data-01', '--size', '10')).stderr).not.toContain('hint:');
      expect(JSON.parse((await cli('-o', 'json', 'volumes', 'modify', 'data-01', '--type', 'gp2')).stderr)).toMatchObject({ status: 400 });
      expect((await cli('volumes', 'modify', 'data-01', '--type', 'gp2', '--clear-iops', '--clear-throughput')).code).toBe(EXIT.ok);
    });

    it("shows each attachment's status message, what it waits for or why it failed, on its volume and its instance", async () => {
      await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--az', 'us-east-1b', '--attach', INSTANCE_A);
      const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
      const message = `volume is in us-east-1b, instance ${INSTANCE_A} in us-east-1a`;
      await store.update<AttachmentRecord>(key, { status: { state: 'error', code: 'InvalidVolume.ZoneMismatch', message, attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' } });
      const volume = await cli('volumes', 'get', 'data-01');
      expect(volume.stdout).toMatch(/\nVOLUME\s+INSTANCE\s+STATE\s+LIFE\s+DEVICE\s+MESSAGE\n/);
      expect(volume.stdout).toMatch(new RegExp(`\ndata-01\\s+${INSTANCE_A}\\s+error \\(attempt 1, InvalidVolume\\.ZoneMismatch\\)\\s+alive\\s+-\\s+${message}\n?$`));
      const instance = await cli('instances', 'attachments', INSTANCE_A);
      expect(instance.stdout.trim().split('\n').at(-1)).toMatch(new RegExp(`^data-01\\s+${INSTANCE_A}\\s+error .*\\s+alive\\s+-\\s+${message}$`));
    });

    it('grows, modifies, attaches, detaches and deletes', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--iops', '4000', '--id', 'data-01');
      const grown = await cli('-o', 'json', 'volumes', 'grow', 'data-01', '--size', '50');
      expect(grown.json).toMatchObject({ generation: 2, spec: { sizeGiB: 50 } });
      const modified = await cli('-o', 'json', 'volumes', 'modify', 'data-01', '--type', 'gp2', '--clear-iops');
      expect((modified.json as { spec: object }).spec).toEqual({ sizeGiB: 50, volumeType: 'gp2', availabilityZone: 'us-east-1a' });

      const tagged = await cli('-o', 'json', 'volumes', 'tag', 'data-01', '--tag', 'team=storage', '--tag', 'env=dev');
      expect(tagged.json).toMatchObject({ generation: 4, spec: { tags: { team: 'storage', env: 'dev' } } });
      const retagged = await cli('-o', 'json', 'volumes', 'tag', 'data-01', '--tag', 'team=db', '--untag', 'env');
      expect((retagged.json as { spec: { tags: object } }).spec.tags).toEqual({ team: 'db' });
      // A key the volume does not have: said on stderr, not an error.
      const mistyped = await cli('-o', 'json', 'volumes', 'tag', 'data-01', '--untag', 'teem', '--untag', 'owner');
      expect(mistyped).toMatchObject({ code: 0, stderr: 'volume data-01 had no tag teem, owner; nothing removed for them\n' });
      expect((mistyped.json as { spec: { tags: object } }).spec.tags).toEqual({ team: 'db' });
      const untagged = await cli('-o', 'json', 'volumes', 'tag', 'data-01', '--untag', 'team');
      expect(untagged.stderr).toBe('');
      expect((untagged.json as { spec: object }).spec).toEqual({ sizeGiB: 50, volumeType: 'gp2', availabilityZone: 'us-east-1a' });
      const reserved = await cli('volumes', 'tag', 'data-01', '--tag', 'ebs-provisioner:owner=x');
      expect(reserved.code).toBe(EXIT.failed);
      expect(reserved.stderr).toContain('reserved');

      const attached = await cli('volumes', 'attach', 'data-01', INSTANCE_B);
      expect(attached.stdout).toBe(`Attaching: data-01 → ${INSTANCE_B}: pending, alive\n`);
      const detached = await cli('volumes', 'detach', 'data-01', INSTANCE_B);
      expect(detached.stdout).toBe(`Detaching: data-01 → ${INSTANCE_B}: pending, dying\n`);
      expect(sent.at(-1)).toMatchObject({ method: 'DELETE', url: expect.not.stringContaining('force') });
      const forced = await cli('volumes', 'detach', 'data-01', INSTANCE_B, '--force');
      expect(forced.stdout).toBe(`Detaching (forced): data-01 → ${INSTANCE_B}: pending, dying\n`);
      expect(sent.at(-1)).toMatchObject({ method: 'DELETE', url: expect.stringMatching(/\/attachments\/i-[0-9a-f]+\?force=true$/) });
      expect(await store.get({ kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_B })).toMatchObject({ life: 'dying', forceDetach: true });
      const notFailed = await cli('volumes', 'retry', 'data-01');
      expect(notFailed.code).toBe(EXIT.failed);
      expect(notFailed.stderr).toContain('not in error');
      await setVolumeState('data-01', 'error', { code: 'InternalError', message: 'boom' });
      const retried = await cli('-o', 'json', 'volumes', 'retry', 'data-01');
      expect(retried.json).toMatchObject({ generation: 7 });

      const deleted = await cli('volumes', 'delete', 'data-01');
      expect(deleted.stdout).toMatch(/^Deleting: data-01/);
      expect(deleted.stdout).toMatch(/Life:\s+dying/);
    });
  });

  describe('errors', () => {
    it('prints a validation problem with its field messages and exits 1, writing nothing', async () => {
      const run = await cli('volumes', 'create', '--size', '20', '--type', 'gp9', '--snapshot', 'backup-1');
      expect(run.code).toBe(EXIT.failed);
      expect(run.stdout).toBe('');
      const lines = run.stderr.trim().split('\n');
      expect(lines[0]).toBe('error: 400 The request is not valid: the request body is not valid');
      expect(new Set(lines.slice(1).map((l) => l.split(':')[0]!))).toEqual(new Set(['  spec.snapshotId (--snapshot)', '  spec.volumeType (--type)']));
      expect(store.writes).toBe(0);
    });

    it('places a volume with --near in the AZ of an instance, and hints at it when the API finds no placement', async () => {
      const near = await cli('-o', 'json', 'volumes', 'create', '--size', '20', '--near', INSTANCE_A, '--id', 'near-01');
      expect(near.code).toBe(EXIT.ok);
      expect(near.json).toMatchObject({ volumeId: 'near-01', spec: { sizeGiB: 20, placementInstanceId: INSTANCE_A }, attachments: [] });
      const both = await cli('volumes', 'create', '--size', '20', '--near', INSTANCE_A, '--az', 'us-east-1a');
      expect(both.code).toBe(EXIT.usage);
      expect(both.stderr).toContain('give either --az or --near, not both');
      const writes = store.writes;
      const unplaced = await cli('volumes', 'create', '--size', '20');
      expect(unplaced.code).toBe(EXIT.failed);
      expect(unplaced.stderr).toContain('spec.availabilityZone (--az): is required unless placementInstanceId or attachTo names an instance');
      expect(unplaced.stderr.trim().split('\n').at(-1)).toBe('hint: give --az <zone>, --near <instanceId> (the AZ of that instance) or --attach <instanceId>');
      // JSON keeps stderr to the problem document.
      const json = await cli('-o', 'json', 'volumes', 'create', '--size', '20');
      expect(json.stderr).not.toContain('hint:');
      expect(JSON.parse(json.stderr)).toMatchObject({ status: 400 });
      expect(store.writes).toBe(writes);
      // A create that named its zone, malformed, says what is wrong with it and no more.
      const malformed = await cli('volumes', 'create', '--size', '20', '--az', 'not a zone');
      expect(malformed.code).toBe(EXIT.failed);
      expect(malformed.stderr).toContain('spec.availabilityZone');
      expect(malformed.stderr).not.toContain('hint:');
      expect((await cli('volumes', 'create', '--help')).stdout).toContain('--near <instanceId>');
    });

    it('moves a volume not created yet to another AZ or instance with modify --az or --near', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      const moved = await cli('-o', 'json', 'volumes', 'modify', 'data-01', '--az', 'us-east-1b');
      expect(moved.code).toBe(EXIT.ok);
      expect(moved.json).toMatchObject({ spec: { availabilityZone: 'us-east-1b' }, generation: 2 });
      const near = await cli('-o', 'json', 'volumes', 'modify', 'data-01', '--near', INSTANCE_A, '--snapshot', 'snap-0123456789abcdef0');
      expect(near.json).toMatchObject({ spec: { placementInstanceId: INSTANCE_A, snapshotId: 'snap-0123456789abcdef0' }, generation: 3 });
      expect((near.json as { spec: object }).spec).not.toHaveProperty('availabilityZone');
      expect((await cli('volumes', 'modify', 'data-01', '--az', 'us-east-1a', '--near', INSTANCE_A)).code).toBe(EXIT.usage);
    });

    it('refuses modify with a value and its clearing at once (exit 2, nothing sent), rather than taking the value', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--iops', '4000', '--throughput', '200');
      sent = [];
      const iops = await cli('volumes', 'modify', 'data-01', '--iops', '5000', '--clear-iops');
      expect(iops.code).toBe(EXIT.usage);
      expect(iops.stderr).toBe('error: give either --iops or --clear-iops, not both\n');
      const throughput = await cli('volumes', 'modify', 'data-01', '--clear-throughput', '--throughput', '300');
      expect(throughput.code).toBe(EXIT.usage);
      expect(throughput.stderr).toBe('error: give either --throughput or --clear-throughput, not both\n');
      expect(sent).toEqual([]);
      expect((await cli('-o', 'json', 'volumes', 'get', 'data-01')).json).toMatchObject({ generation: 1, spec: { iops: 4000, throughput: 200 } });
    });

    it('prints conflicts and missing volumes', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      const conflict = await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '30', '--id', 'data-01');
      expect(conflict.code).toBe(EXIT.failed);
      expect(conflict.stderr).toBe(
        'error: 409 Conflict with the current state: volume data-01 already exists and differs from this request\n  spec.sizeGiB (--size): is 30 here, 20 on the volume\n' +
          'hint: --id data-01 names a volume that exists: give another id for a new volume, or change this one with `ebs-provisioner volumes modify data-01`\n',
      );
      // One being deleted says what to do itself.
      await cli('volumes', 'delete', 'data-01');
      const dying = await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      expect(dying.code).toBe(EXIT.failed);
      expect(dying.stderr).toBe('error: 409 Conflict with the current state: volume data-01 exists and is being deleted\n  volumeId (--id): is being deleted; choose another id or wait until it is gone\n');
      const missing = await cli('volumes', 'get', 'nope');
      expect(missing.code).toBe(EXIT.failed);
      expect(missing.stderr).toBe(
        'error: 404 Not found: volume nope does not exist\n' +
          'hint: ids are case-sensitive: `ebs-provisioner volumes list` shows the volumes, `ebs-provisioner volumes get <volumeId>` the attachments of one\n',
      );
    });

    it("says what to do after a refusal whose message does not say it: a wrong endpoint, API Gateway's refusals, throttling", async () => {
      const wrongPath = await cli('--endpoint', `${server.url}/v1`, 'volumes', 'list');
      expect(wrongPath.code).toBe(EXIT.failed);
      expect(wrongPath.stderr).toBe(
        "error: 404 No such route: there is no route /v1/volumes; see GET /openapi.json\nhint: is the endpoint (--endpoint or EBS_PROVISIONER_ENDPOINT) the API's base URL? " +
          "The local API's is http://127.0.0.1:3000; a deployed one's is the stack's ApiUrl output, its stage included\n",
      );
      // API Gateway's own refusals, deployed, as its gateway responses word them.
      const refusals: Array<[number, string, string, string]> = [
        [403, 'missing-authentication-token', 'The request is not signed, or names no route', 'Missing Authentication Token'],
        [403, 'not-authorized', 'The caller is not authorized', 'The security token included in the request is expired'],
        [429, 'throttled', 'Too many requests', 'Too Many Requests'],
      ];
      const hints: string[] = [];
      for (const [status, kind, title, detail] of refusals) {
        currentHandler = (async () => ({
          statusCode: status,
          headers: { 'Content-Type': 'application/problem+json' },
          body: JSON.stringify({ type: `urn:ebs-provisioner:problem:${kind}`, title, status, detail, errors: [] }),
        })) as unknown as typeof currentHandler;
        const run = await cli('volumes', 'get', 'data-01');
        expect(run.code, kind).toBe(EXIT.failed);
        const [line, hint, ...rest] = run.stderr.split('\n');
        expect(line, kind).toBe(`error: ${status} ${title}: ${detail}`);
        expect(rest, kind).toEqual(['']);
        hints.push(hint ?? '');
        // In JSON, stderr holds the problem document alone.
        expect(JSON.parse((await cli('-o', 'json', 'volumes', 'get', 'data-01')).stderr), kind).toMatchObject({ status, detail });
      }
      expect(hints).toEqual([
        "hint: give --endpoint the stack's ApiUrl output, its stage included; requests to a custom domain name are signed only with --sigv4",
        'hint: the AWS credentials the requests are signed with (AWS_PROFILE, say) need execute-api:Invoke on this API, and must not have expired',
        "hint: the API's rate limit turned the request away: try again in a moment",
      ]);
    });

    it('with -o json, prints an API error as its problem document on stderr, stdout empty, exit 1 as with tables', async () => {
      const missing = await cli('-o', 'json', 'volumes', 'get', 'nope');
      expect(missing.code).toBe(EXIT.failed);
      expect(missing.stdout).toBe('');
      expect(JSON.parse(missing.stderr)).toEqual({
        type: 'urn:ebs-provisioner:problem:not-found',
        title: 'Not found',
        status: 404,
        detail: 'volume nope does not exist',
        errors: [],
      });
      const invalid = await cli('-o', 'json', 'volumes', 'create', '--size', '20', '--type', 'gp9');
      expect(invalid.code).toBe(EXIT.failed);
      expect(JSON.parse(invalid.stderr)).toMatchObject({ status: 400, errors: [{ path: 'spec.volumeType' }] });
      // An error API Gateway answers itself is printed as it came.
      currentHandler = (async () => ({
        statusCode: 403,
        headers: { 'Content-Type': 'application/json' },
        body: '{"message":"Missing Authentication Token"}',
      })) as unknown as typeof currentHandler;
      const gateway = await cli('-o', 'json', 'volumes', 'get', 'data-01');
      expect(gateway.code).toBe(EXIT.failed);
      expect(JSON.parse(gateway.stderr)).toEqual({ message: 'Missing Authentication Token' });
      // Not an API answer: no problem document to print.
      const unreachable = await cli('-o', 'json', '--endpoint', 'http://127.0.0.1:1', 'volumes', 'list');
      expect(unreachable.code).toBe(EXIT.failed);
      expect(unreachable.stderr).toMatch(/^error: cannot reach the API/);
    });

    it('rejects bad usage with exit code 2 before sending anything', async () => {
      for (const argv of [
        ['volumes', 'create', '--size', 'big'],
        ['volumes', 'create'],
        ['volumes', 'create', '--size', '1', '--tag', 'novalue'],
        ['volumes', 'create', '--size', '1', '--device', '/dev/sdf'],
        ['volumes', 'modify', 'data-01'],
        ['volumes', 'tag', 'data-01'],
        ['volumes', 'tag', 'data-01', '--tag', 'a=1', '--untag', 'a'],
        ['volumes', 'tag', 'data-01', '--untag', ''],
        ['wait', 'data-01', '--state', 'asleep'],
        ['volumes', 'list', '--state', 'asleep'],
        ['-o', 'yaml', 'volumes', 'list'],
        ['volumes', 'explode'],
      ]) {
        const run = await cli(...argv);
        expect(run.code, argv.join(' ')).toBe(EXIT.usage);
        expect(run.stderr, argv.join(' ')).toMatch(/error/);
      }
      expect(sent).toEqual([]);
    });

    it('lists the states a volume can be listed in, and refuses deleted, whose listing could only be empty (exit 2, nothing sent)', async () => {
      const help = await cli('volumes', 'list', '--help');
      expect(help.stdout.replace(/\s+/g, ' ')).toContain('--state <state> only volumes in this state: pending, creating, available, in-use, modifying, deleting, error ');
      const deleted = await cli('volumes', 'list', '--state', 'deleted');
      expect(deleted.code).toBe(EXIT.usage);
      expect(deleted.stderr.split('\n')[0]).toBe(
        "error: option '--state <state>' argument 'deleted' is invalid. a deleted volume's record is removed, so no volume is listed as deleted; `wait <volumeId> --state deleted` waits for a delete",
      );
      expect((await cli('volumes', 'list', '--state', 'asleep')).stderr.split('\n')[0]).toBe(
        "error: option '--state <state>' argument 'asleep' is invalid. must be one of pending, creating, available, in-use, modifying, deleting, error",
      );
      expect(sent).toEqual([]);
    });

    it('names the volume types and the units in the help of volumes modify, as in that of volumes create', async () => {
      for (const command of ['create', 'modify']) {
        const help = (await cli('volumes', command, '--help')).stdout.replace(/\s+/g, ' ');
        expect(help, command).toMatch(/--type <type> (new )?volume type \(gp2, gp3, io1, io2, st1, sc1, standard\)/);
        expect(help, command).toMatch(/--throughput <MiBps> (new )?throughput in MiB\/s \(gp3\)/);
      }
    });

    it('says what a number option takes (exit 2, nothing sent)', async () => {
      for (const [argv, message] of [
        [['volumes', 'create', '--size', '-5'], "option '--size <GiB>' argument '-5' is invalid. must be a whole number from 1 to 9007199254740991"],
        [['volumes', 'grow', 'data-01', '--size', '1e1'], "option '--size <GiB>' argument '1e1' is invalid. must be a whole number from 1 to 9007199254740991"],
        [['volumes', 'list', '--limit', '0'], "option '--limit <n>' argument '0' is invalid. must be a whole number from 1 to 9007199254740991"],
        [['wait', 'data-01', '--state', 'available', '--interval', '0'], "option '--interval <seconds>' argument '0' is invalid. must be a whole number from 1 to 2147483"],
        // Past Node's longest timer (2^31 - 1 ms) a sleep would end at once: checks every millisecond.
        [['wait', 'data-01', '--state', 'available', '--timeout', '9999999', '--interval', '2147484'], "option '--interval <seconds>' argument '2147484' is invalid. must be a whole number from 1 to 2147483"],
        [['wait', 'data-01', '--state', 'available', '--timeout', '-1'], "option '--timeout <seconds>' argument '-1' is invalid. must be a whole number from 0 to 9007199254740991"],
        // Past 2^53 a number is rounded: 99999999999999999999 was read as 1e20, not the size written.
        [['volumes', 'create', '--size', '99999999999999999999'], "option '--size <GiB>' argument '99999999999999999999' is invalid. must be a whole number from 1 to 9007199254740991"],
        [['volumes', 'list', '--limit', '9007199254740992'], "option '--limit <n>' argument '9007199254740992' is invalid. must be a whole number from 1 to 9007199254740991"],
      ] as const) {
        const run = await cli(...argv);
        expect(run.code, argv.join(' ')).toBe(EXIT.usage);
        expect(run.stderr.split('\n')[0], argv.join(' ')).toBe(`error: ${message}`);
      }
      expect(sent).toEqual([]);
    });

    it('refuses a volume or instance id that is empty, "." or "..", whose path names another route (exit 2, nothing sent)', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await cli('volumes', 'attach', 'data-01', INSTANCE_A);
      sent = [];
      for (const id of ['', '.', '..']) {
        for (const argv of [
          // Sent, `volumes detach data-01 ..` was DELETE /volumes/data-01: the volume deleted; retry-attachment retried the volume.
          ['volumes', 'detach', 'data-01', id],
          ['volumes', 'retry-attachment', 'data-01', id],
          ['volumes', 'attach', 'data-01', id],
          ['volumes', 'get', id],
          ['volumes', 'modify', id, '--size', '30'],
          ['volumes', 'retry', id],
          ['volumes', 'grow', id, '--size', '30'],
          ['volumes', 'tag', id, '--tag', 'a=b'],
          ['volumes', 'delete', id],
          ['volumes', 'detach', id, INSTANCE_A],
          ['instances', 'attachments', id],
          ['wait', id, '--state', 'deleted'],
          ['wait', 'data-01', '--attachment', id, '--state', 'detached'],
        ]) {
          const run = await cli(...argv);
          expect(run.code, JSON.stringify(argv)).toBe(EXIT.usage);
          expect(run.stderr, JSON.stringify(argv)).toMatch(/^error: .* is invalid for argument '(volumeId|instanceId)'\. must not be empty, "\." or "\.\.", which name another path$|^error: option '--attachment <instanceId>' argument '.*' is invalid\. must be an EC2 instance id/m);
        }
      }
      expect(sent).toEqual([]);
      expect((await cli('-o', 'json', 'volumes', 'get', 'data-01')).json).toMatchObject({ life: 'alive', attachments: [{ instanceId: INSTANCE_A, life: 'alive' }] });
    });

    it('says when the endpoint answers with something other than the API\'s JSON, rather than failing on the answer', async () => {
      // Another web server on the port (a development server answers its page for any path).
      currentHandler = (async () => ({
        statusCode: 200,
        headers: { 'Content-Type': 'text/html; charset=utf-8' },
        body: '<!doctype html><title>app</title>',
      })) as unknown as typeof currentHandler;
      for (const argv of [['volumes', 'get', 'data-01'], ['volumes', 'list'], ['volumes', 'grow', 'data-01', '--size', '30'], ['wait', 'data-01', '--state', 'available']]) {
        const run = await cli(...argv);
        expect(run.code, argv.join(' ')).toBe(EXIT.failed);
        expect(run.stderr, argv.join(' ')).toMatch(
          new RegExp(`^error: GET ${server.url}/volumes\\S* answered 200 with text/html; charset=utf-8, not the provisioner API's JSON: is ${server.url} its URL\\?\n$`),
        );
      }
    });

    it('names an error page another server answers instead of printing it whole; plain text it prints', async () => {
      const page = `<!doctype html><title>404: This page could not be found</title>${'<div></div>'.repeat(2_000)}`;
      currentHandler = (async () => ({ statusCode: 404, headers: { 'Content-Type': 'text/html; charset=utf-8' }, body: page })) as unknown as typeof currentHandler;
      for (const argv of [['volumes', 'get', 'data-01'], ['wait', 'data-01', '--state', 'deleted']]) {
        const run = await cli(...argv);
        expect(run.code, argv.join(' ')).toBe(EXIT.failed);
        expect(run.stderr, argv.join(' ')).toBe(
          `error: 404: GET ${server.url}/volumes/data-01 answered 404 with text/html; charset=utf-8, not the provisioner API's JSON: is ${server.url} its URL?\n`,
        );
      }
      currentHandler = (async () => ({ statusCode: 502, headers: { 'Content-Type': 'text/plain' }, body: 'upstream connect error' })) as unknown as typeof currentHandler;
      expect((await cli('volumes', 'get', 'data-01')).stderr).toBe('error: 502: upstream connect error\n');
    });

    it('says what API Gateway\'s own 502 and 500 `Internal server error` mean: whether the change may have been made, and when to retry', async () => {
      const gatewayError = (statusCode: number) =>
        (async () => ({ statusCode, headers: { 'Content-Type': 'application/json' }, body: '{"message": "Internal server error"}' })) as unknown as typeof currentHandler;
      // The function ran, and failed or ran out of its time: a write may be stored.
      currentHandler = gatewayError(502);
      const write = await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      expect(write.code).toBe(EXIT.failed);
      expect(write.stderr).toBe(
        'error: 502: Internal server error: the API function failed or did not finish in time; the change may have been made: read the record before repeating it\n',
      );
      const read = await cli('volumes', 'get', 'data-01');
      expect(read.stderr).toBe('error: 502: Internal server error: the API function failed or did not finish in time; safe to retry\n');
      // Lambda refused to run the function: nothing was done.
      currentHandler = gatewayError(500);
      const refused = await cli('volumes', 'delete', 'data-01');
      expect(refused.code).toBe(EXIT.failed);
      expect(refused.stderr).toBe('error: 500: Internal server error: the API function could not be run; nothing was done, safe to retry\n');
      // In JSON, the answer as it came.
      expect(JSON.parse((await cli('-o', 'json', 'volumes', 'get', 'data-01')).stderr)).toEqual({ message: 'Internal server error' });
    });

    it('says that a request the API did not answer in time may have been made, rather than that the API cannot be reached', async () => {
      beforeSend = async () => {
        throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      };
      const write = await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      expect(write.code).toBe(EXIT.failed);
      expect(write.stderr).toBe(`error: the API at ${server.url} did not answer POST /volumes within 30 s; the change may have been made: read the record before repeating it\n`);
      const read = await cli('volumes', 'get', 'data-01');
      expect(read.code).toBe(EXIT.failed);
      expect(read.stderr).toBe(`error: the API at ${server.url} did not answer GET /volumes/data-01 within 30 s; nothing was changed: try again\n`);
    });

    it('says when the API cannot be reached', async () => {
      const run = await cli('--endpoint', 'http://127.0.0.1:1', 'volumes', 'list');
      expect(run.code).toBe(EXIT.failed);
      expect(run.stderr).toMatch(/^error: cannot reach the API at http:\/\/127\.0\.0\.1:1: .*npm start/);
      // Every name of this machine the CLI takes as such (as for signing over http://), not 127.0.0.1 alone.
      for (const endpoint of ['http://127.0.0.2:1', 'http://localhost:1', 'http://[::1]:1']) {
        beforeSend = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') }));
        const loopback = await cli('--endpoint', endpoint, 'volumes', 'list');
        expect(loopback.code, endpoint).toBe(EXIT.failed);
        expect(loopback.stderr, endpoint).toBe(`error: cannot reach the API at ${endpoint}: connect ECONNREFUSED (is the local runtime running? start it with \`npm start\`)\n`);
      }
      // Elsewhere (the name not found, here before any request leaves): what to check instead of the local runtime.
      beforeSend = () => Promise.reject(new TypeError('fetch failed', { cause: new Error('getaddrinfo ENOTFOUND api.example.com') }));
      const remote = await cli('--endpoint', 'https://api.example.com/v1', 'volumes', 'list');
      expect(remote.code).toBe(EXIT.failed);
      expect(remote.stderr).toBe('error: cannot reach the API at https://api.example.com/v1: getaddrinfo ENOTFOUND api.example.com (check the URL, and that this machine reaches it)\n');
    });

    it('prints --help with the exit codes and exits 0', async () => {
      const run = await cli('--help');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stdout).toContain('Usage: ebs-provisioner');
      for (const [name, code] of Object.entries(EXIT)) expect(run.stdout, name).toMatch(new RegExp(`^  ${code}  \\S`, 'm'));
    });
  });

  it('prints its version with --version and exits 0, sending nothing', async () => {
    const run = await cli('--version');
    expect(run.code).toBe(EXIT.ok);
    expect(run.stdout).toBe(`${(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version}\n`);
    expect(run.stderr).toBe('');
    expect(sent).toEqual([]);
  });

  it('ends as it would when the reader of its output stops early (`| head`): no EPIPE thrown with its stack', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'cli/main.ts', '--help'], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // The reading end is closed before the CLI writes a thing: every write of its output meets a closed pipe.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(EXIT.ok);
  }, 30_000);

  describe('wait', () => {
    it('follows a volume through its states to available, one progress line per change', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      const progression: VolumeState[] = ['pending', 'creating', 'creating', 'available'];
      clock.onSleep = async () => {
        progression.shift();
        await setVolumeState('data-01', progression[0] ?? 'available');
      };
      const run = await cli('wait', 'data-01', '--state', 'available,in-use', '--interval', '2');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr.trim().split('\n')).toEqual([
        'volume data-01: pending',
        'volume data-01: creating',
        'done: volume data-01 is available (after 6s)',
      ]);
    });

    it('waits for a grow to be applied, not just for an available state', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 1 });
      await setVolumeState('data-01', 'available');
      await cli('volumes', 'grow', 'data-01', '--size', '40');
      let polls = 0;
      clock.onSleep = async () => {
        polls++;
        if (polls === 1) await setVolumeState('data-01', 'modifying');
        if (polls === 2) {
          await setVolumeState('data-01', 'available');
          await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 2 });
        }
      };
      const run = await cli('wait', 'data-01', '--state', 'available');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr).toContain('volume data-01: available, change pending');
      expect(run.stderr).toContain('volume data-01: modifying, change pending');
      expect(polls).toBe(2);
    });

    it('shows no change pending on a volume being deleted: its change is never applied', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 1 });
      await setVolumeState('data-01', 'available');
      await cli('volumes', 'grow', 'data-01', '--size', '40');
      await cli('volumes', 'delete', 'data-01');
      let polls = 0;
      clock.onSleep = async () => {
        polls++;
        if (polls === 1) await setVolumeState('data-01', 'deleting');
        if (polls === 2) await store.remove(volumeKey('data-01'));
      };
      const run = await cli('wait', 'data-01', '--state', 'deleted');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr).not.toContain('change pending');
      expect(run.stderr.trim().split('\n').slice(0, 2)).toEqual(['volume data-01: available', 'volume data-01: deleting']);
    });

    it('stops with the reason (exit 4) when the system refused the change: it will never be applied', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 1 });
      await cli('volumes', 'grow', 'data-01', '--size', '40');
      const reason = 'spec.sizeGiB: EBS volumes can only grow: 50 GiB cannot become 40 GiB';
      await setVolumeState('data-01', 'available', { code: 'InvalidSpecChange', message: reason });
      const run = await cli('wait', 'data-01', '--state', 'available');
      expect(run.code).toBe(EXIT.errorState);
      expect(run.stderr).toContain(`volume data-01 cannot change: ${reason}`);
      expect(run.stderr).toMatch(/\nhint: change the spec to one EBS can make of the volume, with `ebs-provisioner volumes modify data-01`\n$/);
    });

    it('waits for the change that puts a refused spec right, rather than stopping on the refusal of the spec before it', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 1 });
      await cli('volumes', 'grow', 'data-01', '--size', '40');
      await setVolumeState('data-01', 'available', { code: 'InvalidSpecChange', message: 'spec.sizeGiB: EBS volumes can only grow: 50 GiB cannot become 40 GiB' });
      expect((await cli('volumes', 'grow', 'data-01', '--size', '60')).code).toBe(EXIT.ok);
      clock.onSleep = async () => void (await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 3 }));
      const run = await cli('wait', 'data-01', '--state', 'available');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr.trim().split('\n')).toEqual(['volume data-01: available, change pending', 'done: volume data-01 is available (after 2s)']);
    });

    it('waits for an attachment to be attached, then for it to be gone', async () => {
      await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
      const states = ['attaching', 'attached'] as const;
      clock.onSleep = async () => {
        const state = states[0];
        if (state) {
          await store.update<AttachmentRecord>(key, { status: { state, attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' }, device: '/dev/sdf' });
        }
        (states as unknown as string[]).shift();
      };
      const attached = await cli('-o', 'json', 'wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached');
      expect(attached.code).toBe(EXIT.ok);
      expect(attached.json).toMatchObject({ result: 'reached', state: 'attached', attachment: { device: '/dev/sdf' } });

      clock.onSleep = async () => store.remove(key);
      const detached = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'detached');
      expect(detached.code).toBe(EXIT.ok);
      expect(detached.stderr).toContain(`done: attachment data-01 → ${INSTANCE_A} is detached`);
    });

    it('counts a removed volume as deleted', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await cli('volumes', 'delete', 'data-01');
      clock.onSleep = async () => store.remove(volumeKey('data-01'));
      const run = await cli('wait', 'data-01', '--state', 'deleted');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr).toContain('done: volume data-01 is deleted');
    });

    it('fails at once (exit 1, as for a 404) on a volume that does not exist, unless waiting for deleted', async () => {
      let polls = 0;
      clock.onSleep = () => void polls++;
      const started = clock.now();
      const typo = await cli('wait', 'data-0l', '--state', 'available');
      expect(typo.code).toBe(EXIT.failed);
      expect(typo.stderr).toBe('failed: volume data-0l does not exist; wanted available\nhint: ids are case-sensitive: `ebs-provisioner volumes list` shows the volumes\n');
      expect(clock.now()).toBe(started);
      expect(polls).toBe(0);
      const json = await cli('-o', 'json', 'wait', 'data-0l', '--state', 'available,in-use');
      expect(json.code).toBe(EXIT.failed);
      expect(json.json).toEqual({ result: 'not-found', state: 'deleted', message: 'volume data-0l does not exist' });
      expect((await cli('wait', 'data-0l', '--state', 'deleted')).code).toBe(EXIT.ok);
    });

    it('does not take a route the API does not know (an endpoint with a wrong path) for a removed record: a 404 other than not-found is an error', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      const run = await cli('--endpoint', `${server.url}/v1`, 'wait', 'data-01', '--state', 'deleted');
      expect(run.code).toBe(EXIT.failed);
      expect(run.stderr).toContain('error: 404 No such route');
      expect(run.stderr).not.toContain('deleted');
    });

    it('refuses a malformed --attachment instance id (exit 2, nothing sent): it names no attachment, which would count as detached', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      sent = [];
      for (const instanceId of ['I-0123456789ABCDEF0', 'i-12345', INSTANCE_A.slice(2), '']) {
        const run = await cli('wait', 'data-01', '--attachment', instanceId, '--state', 'detached');
        expect(run.code, instanceId).toBe(EXIT.usage);
        expect(run.stderr.split('\n')[0], instanceId).toBe(
          `error: option '--attachment <instanceId>' argument '${instanceId}' is invalid. must be an EC2 instance id like i-0123456789abcdef0`,
        );
      }
      expect(sent).toEqual([]);
    });

    it('fails at once when the volume is removed while another state is wanted', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      clock.onSleep = async () => store.remove(volumeKey('data-01'));
      const run = await cli('wait', 'data-01', '--state', 'available', '--timeout', '600');
      expect(run.code).toBe(EXIT.failed);
      expect(run.stderr.trim().split('\n')).toEqual(['volume data-01: pending', 'failed: volume data-01 was removed; wanted available']);
    });

    it('fails at once on an attachment that does not exist, unless waiting for detached', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      const run = await cli('wait', 'data-01', '--attachment', INSTANCE_B, '--state', 'attached');
      expect(run.code).toBe(EXIT.failed);
      expect(run.stderr).toBe(
        `failed: attachment data-01 → ${INSTANCE_B} does not exist; wanted attached\nhint: \`ebs-provisioner volumes get data-01\` shows the volume's attachments\n`,
      );
      const noVolume = await cli('wait', 'nope', '--attachment', INSTANCE_B, '--state', 'attached');
      expect(noVolume.code).toBe(EXIT.failed);
      expect(noVolume.stderr).toBe('failed: volume nope does not exist; wanted attached\nhint: ids are case-sensitive: `ebs-provisioner volumes list` shows the volumes\n');
      expect((await cli('wait', 'data-01', '--attachment', INSTANCE_B, '--state', 'detached')).code).toBe(EXIT.ok);
    });

    it('follows an attachment whose volume record was removed from the table until it is gone: the volume\'s 404 does not make it detached', async () => {
      await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
      await store.update<AttachmentRecord>(key, {
        status: { state: 'error', code: 'VolumeRecordRemoved', message: 'volume record data-01 was removed from the table', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' },
        device: '/dev/sdf',
      });
      await store.remove(volumeKey('data-01'));
      // Still there, in error: waiting for its error reaches it, and waiting for anything else stops at it.
      const inError = await cli('-o', 'json', 'wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'error', '--timeout', '0');
      expect(inError.code).toBe(EXIT.ok);
      expect(inError.json).toMatchObject({ result: 'reached', state: 'error', attachment: { volumeId: 'data-01', instanceId: INSTANCE_A, status: { code: 'VolumeRecordRemoved' } } });
      expect(inError.json).not.toHaveProperty('volume');
      expect((await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached', '--timeout', '0')).code).toBe(EXIT.errorState);

      // Deleted, it detaches the volume found by its tags: detached only once the record is gone.
      expect((await cli('volumes', 'detach', 'data-01', INSTANCE_A)).code).toBe(EXIT.ok);
      const states = ['detaching', 'gone'] as const;
      let polls = 0;
      clock.onSleep = async () => {
        polls++;
        const state = states[polls - 1];
        if (state === 'detaching') await store.update<AttachmentRecord>(key, { status: { state, attempts: 0, updatedAt: '2026-01-01T00:00:02.000Z' } });
        if (state === 'gone') await store.remove(key);
      };
      const run = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'detached');
      expect(run.code).toBe(EXIT.ok);
      expect(polls).toBe(2);
      expect(run.stderr.trim().split('\n')).toEqual([
        `attachment data-01 → ${INSTANCE_A}: error (VolumeRecordRemoved)`,
        `attachment data-01 → ${INSTANCE_A}: detaching`,
        `done: attachment data-01 → ${INSTANCE_A} is detached (after 4s)`,
      ]);
    });

    it('names the attachment, not its volume, when an attachment outliving its volume record is removed while another state is wanted', async () => {
      await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
      await store.update<AttachmentRecord>(key, { status: { state: 'detaching', attempts: 0, updatedAt: '2026-01-01T00:00:00.000Z' }, device: '/dev/sdf' });
      await store.remove(volumeKey('data-01'));
      clock.onSleep = async () => store.remove(key);
      const run = await cli('-o', 'json', 'wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached', '--timeout', '600');
      expect(run.code).toBe(EXIT.failed);
      const message = `attachment data-01 → ${INSTANCE_A} was removed (volume data-01's record is gone too)`;
      expect(run.json).toEqual({ result: 'not-found', state: 'detached', message });
      expect(run.stderr.trim().split('\n')).toEqual([`attachment data-01 → ${INSTANCE_A}: detaching`, `failed: ${message}; wanted attached`]);
    });

    it('reaches an error state when that is what it waits for, even with a change pending', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 1 });
      await cli('volumes', 'grow', 'data-01', '--size', '40');
      await setVolumeState('data-01', 'error', { code: 'VolumeModificationRateExceeded', message: 'You have reached the maximum modification rate per volume limit.' });
      const run = await cli('wait', 'data-01', '--state', 'error');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr).toContain('done: volume data-01 is error');
    });

    it('stops waiting for an attachment (exit 4) when its volume fails: the attach waits for the volume\'s retry', async () => {
      await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      let polls = 0;
      clock.onSleep = async () => {
        polls++;
        await setVolumeState('data-01', 'error', { code: 'VolumeLimitExceeded', message: 'You have exceeded your maximum gp3 storage limit', attempts: 3 });
      };
      const run = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached');
      expect(run.code).toBe(EXIT.errorState);
      expect(polls).toBe(1);
      expect(run.stderr.trim().split('\n').slice(-2)).toEqual([
        `failed: attachment data-01 → ${INSTANCE_A} cannot attach: volume data-01 is in error (VolumeLimitExceeded): You have exceeded your maximum gp3 storage limit; the attach waits until the volume is retried`,
        "hint: fix what the volume's error names, then `ebs-provisioner volumes retry data-01` (a spec field EC2 refused is put right with `ebs-provisioner volumes modify data-01`, which retries too): the attach follows",
      ]);
      const json = await cli('-o', 'json', 'wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached,detached');
      expect(json.code).toBe(EXIT.errorState);
      expect(json.json).toMatchObject({ result: 'error', state: 'pending' });
      // Waited for, the pending attachment is reached all the same.
      expect((await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'pending')).code).toBe(EXIT.ok);
    });

    it('waits on a record in error whose removal was asked for since: the error is the one before, and the system takes the removal up', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await cli('volumes', 'attach', 'data-01', INSTANCE_A);
      await setVolumeState('data-01', 'error', { code: 'VolumeLimitExceeded', message: 'You have exceeded your maximum gp3 storage limit', attempts: 3 });
      const attachmentKey: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
      await store.update<AttachmentRecord>(attachmentKey, { status: { state: 'error', code: 'IncorrectInstanceState', message: 'the instance is terminated', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' } });

      expect((await cli('volumes', 'detach', 'data-01', INSTANCE_A)).code).toBe(EXIT.ok);
      clock.onSleep = async () => store.remove(attachmentKey);
      const detached = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'detached');
      expect(detached.code).toBe(EXIT.ok);
      expect(detached.stderr).toContain(`done: attachment data-01 → ${INSTANCE_A} is detached`);

      // The volume's delete detaches its attachments: one in error is taken up as well.
      await cli('volumes', 'attach', 'data-01', INSTANCE_B);
      const otherKey: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_B };
      await store.update<AttachmentRecord>(otherKey, { status: { state: 'error', code: 'IncorrectInstanceState', message: 'the instance is terminated', attempts: 1, updatedAt: '2026-01-01T00:00:00.000Z' } });
      expect((await cli('volumes', 'delete', 'data-01')).code).toBe(EXIT.ok);
      clock.onSleep = async () => store.remove(otherKey);
      expect((await cli('wait', 'data-01', '--attachment', INSTANCE_B, '--state', 'detached')).code).toBe(EXIT.ok);
      clock.onSleep = async () => store.remove(volumeKey('data-01'));
      const deleted = await cli('wait', 'data-01', '--state', 'deleted');
      expect(deleted.code).toBe(EXIT.ok);
      expect(deleted.stderr).toContain('done: volume data-01 is deleted');
    });

    it('stops (exit 4) at a removal that failed: the system tries it again only after its longest backoff', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      await cli('volumes', 'delete', 'data-01');
      await setVolumeState('data-01', 'error', {
        code: 'Timeout',
        message: 'deleting vol-0123456789abcdef0: 6 hours since the operation started; being deleted: trying again at 2026-01-01T00:15:00.000Z',
        attempts: 8,
        nextAttemptAt: '2026-01-01T00:15:00.000Z',
      });
      const run = await cli('wait', 'data-01', '--state', 'deleted');
      expect(run.code).toBe(EXIT.errorState);
      expect(run.stderr).toContain('failed: volume data-01 failed: deleting vol-0123456789abcdef0');
      expect(run.stderr).toMatch(/\nhint: fix what the error names: the system tries the delete again by itself at its next try\n$/);
    });

    it('stops at an error state with the reason (exit 4)', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      clock.onSleep = async () => {
        await setVolumeState('data-01', 'error', { code: 'VolumeLimitExceeded', message: 'You have exceeded your maximum gp3 storage limit', attempts: 3 });
      };
      const run = await cli('wait', 'data-01', '--state', 'available');
      expect(run.code).toBe(EXIT.errorState);
      expect(run.stderr).toContain('failed: volume data-01 failed: You have exceeded your maximum gp3 storage limit');
      expect(run.stderr).toMatch(
        /\nhint: fix what the error names, then `ebs-provisioner volumes retry data-01` \(a spec field EC2 refused is put right with `ebs-provisioner volumes modify data-01`, which retries too\)\n$/,
      );
    });

    it('says to delete and create again a volume EC2 reports in state error, which a retry only looks at again, also to its attachment', async () => {
      await cli('volumes', 'create', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      const message = 'EC2 reports volume vol-0123456789abcdef0 in state error: its data is lost. Delete this volume record (that deletes the EC2 volume) and create it again; a retry only looks at it again';
      await setVolumeState('data-01', 'error', { code: 'VolumeError', message });
      const hint =
        'hint: a retry only looks at the volume again: delete the record with `ebs-provisioner volumes delete data-01` (which deletes the EC2 volume), then create it again';
      const volume = await cli('wait', 'data-01', '--state', 'available');
      expect(volume.code).toBe(EXIT.errorState);
      expect(volume.stderr.trim().split('\n').slice(-2)).toEqual([`failed: volume data-01 failed: ${message}`, hint]);
      const attachment = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached');
      expect(attachment.code).toBe(EXIT.errorState);
      expect(attachment.stderr.trim().split('\n').at(-1)).toBe(hint);
    });

    it('takes a record in the table that is not valid for one in error: stops with the reasons (exit 4), or reaches error', async () => {
      store.putRaw({ kind: 'volume', volumeId: 'bad', spec: { sizeGiB: 20, volumeType: 'gp3' }, life: 'alive', generation: '1' });
      const run = await cli('wait', 'bad', '--state', 'available');
      expect(run.code).toBe(EXIT.errorState);
      expect(run.stderr).toContain('failed: volume bad failed: the record of volume bad in the table is not valid, so nothing is done with it: record.generation:');
      // Its message says to correct it in the table: a retry would be refused.
      expect(run.stderr).not.toContain('hint:');
      expect((await cli('wait', 'bad', '--state', 'error')).code).toBe(EXIT.ok);
      // Its reasons are listed once, below what to do about them.
      const shown = await cli('volumes', 'get', 'bad');
      expect(shown.code).toBe(EXIT.failed);
      expect(shown.stderr).toBe(
        'error: 409 The record in the table is not valid: the record of volume bad in the table is not valid, so nothing is done with it. Correct it in the table, or remove it there\n' +
          '  record.generation: Invalid input: expected number, received string\n',
      );

      const listed = await cli('volumes', 'list', '--state', 'error');
      expect(listed.code).toBe(EXIT.ok);
      expect(listed.stdout).toMatch(/\nbad\s+error \(InvalidRecord\)\s+-\s+-\s+-\s+-\n?$/);
    });

    describe("on a volume whose change waits for EC2's limit on modifications", () => {
      const HOUR = 3_600_000;
      /** data-01 grown from 20 to 40 GiB, in-use, its ModifyVolume waiting until `inMs` from now; returns that time. */
      async function coolingGrow(inMs: number, code = 'VolumeModificationRateExceeded'): Promise<string> {
        await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
        await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 1 });
        await cli('volumes', 'grow', 'data-01', '--size', '40');
        const nextAttemptAt = new Date(clock.now() + inMs).toISOString();
        await setVolumeState('data-01', 'in-use', { code, message: `trying again at ${nextAttemptAt}`, nextAttemptAt });
        return nextAttemptAt;
      }

      it('stops at once (exit 5) saying until when, when that is after the timeout and only the change brings the states wanted', async () => {
        const waitsUntil = await coolingGrow(5 * HOUR);
        let polls = 0;
        clock.onSleep = () => void polls++;
        const started = clock.now();
        const run = await cli('wait', 'data-01', '--state', 'in-use');
        expect(run.code).toBe(EXIT.cooldown);
        const message = `volume data-01 waits until ${waitsUntil} to apply its change (EC2 allows 4 modifications per volume in any 24 hours), after this wait's timeout`;
        expect(run.stderr).toBe(`failed: ${message}; wanted in-use\nhint: wait again with a --timeout that reaches ${waitsUntil}, or once that time is near\n`);
        expect(clock.now()).toBe(started);
        expect(polls).toBe(0);

        const json = await cli('-o', 'json', 'wait', 'data-01', '--state', 'available,in-use,modifying', '--timeout', '3600');
        expect(json.code).toBe(EXIT.cooldown);
        expect(json.json).toEqual({ result: 'cooldown', state: 'in-use', waitsUntil, message });
      });

      it('waits on when the change may be made before the timeout, and reaches the state once it is', async () => {
        await coolingGrow(60_000);
        clock.onSleep = async (now) => {
          if (now < Date.parse('2026-01-01T00:01:30.000Z')) return;
          await setVolumeState('data-01', 'in-use');
          await store.update<VolumeRecord>(volumeKey('data-01'), { observedGeneration: 2 });
        };
        const run = await cli('wait', 'data-01', '--state', 'in-use', '--interval', '30');
        expect(run.code).toBe(EXIT.ok);
        expect(run.stderr).toContain('done: volume data-01 is in-use (after 90s)');
      });

      it.each([
        ['a retry backing off (another code)', ['in-use'], undefined, 'InternalError'],
        ['a state the wait does not hold back (the volume deleted)', ['in-use', 'deleted'], undefined, undefined],
        ["an attachment's state", ['attached'], INSTANCE_A, undefined],
      ])('is no reason to stop early: %s', async (_, states, instanceId, code) => {
        await coolingGrow(5 * HOUR, code);
        if (instanceId) await cli('volumes', 'attach', 'data-01', instanceId);
        const run = await cli('wait', 'data-01', ...(instanceId ? ['--attachment', instanceId] : []), '--state', states.join(','), '--timeout', '10', '--interval', '5');
        expect(run.code).toBe(EXIT.timeout);
      });
    });

    it('polls on through answers the API says to retry (429 throttled, 5xx), until its timeout; others end it at once', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      const api = currentHandler;
      const refusals = [429, 503];
      currentHandler = (async (event, context) => {
        const status = refusals.shift();
        if (status === undefined) return api(event, context);
        const title = status === 429 ? 'Too many requests' : 'Service Unavailable';
        return { statusCode: status, headers: { 'Content-Type': 'application/problem+json' }, body: JSON.stringify({ type: 'about:blank', title, status, detail: title, errors: [] }) };
      }) as typeof currentHandler;
      clock.onSleep = async () => void (refusals.length === 0 && (await setVolumeState('data-01', 'available')));
      const run = await cli('wait', 'data-01', '--state', 'available');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr.trim().split('\n')).toEqual([
        'volume data-01: the API answered 429 Too many requests; trying again',
        'volume data-01: the API answered 503 Service Unavailable; trying again',
        'done: volume data-01 is available (after 4s)',
      ]);

      // Failing until the timeout, the last answer is the wait's error.
      clock.onSleep = undefined;
      refusals.push(...Array<number>(10).fill(503));
      const failing = await cli('wait', 'data-01', '--state', 'in-use', '--timeout', '4', '--interval', '2');
      expect(failing.code).toBe(EXIT.failed);
      expect(failing.stderr.trim().split('\n').at(-1)).toBe('error: 503 Service Unavailable: Service Unavailable');
    });

    it('polls on through a look the API does not answer in time, as through the 504 API Gateway answers for it', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      let unanswered = 1;
      beforeSend = async () => {
        if (unanswered-- > 0) throw new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      };
      clock.onSleep = async () => void (await setVolumeState('data-01', 'available'));
      const run = await cli('wait', 'data-01', '--state', 'available');
      expect(run.code).toBe(EXIT.ok);
      expect(run.stderr.trim().split('\n')).toEqual(['volume data-01: the API did not answer in time; trying again', 'done: volume data-01 is available (after 2s)']);
      // An API that cannot be reached ends the wait at once.
      const unreachable = await cli('--endpoint', 'http://127.0.0.1:1', 'wait', 'data-01', '--state', 'available');
      expect(unreachable.code).toBe(EXIT.failed);
      expect(unreachable.stderr).toMatch(/^error: cannot reach the API at http:\/\/127\.0\.0\.1:1: /);
    });

    it('times out on the injected clock (exit 3), polling at the interval', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      let polls = 0;
      clock.onSleep = () => void polls++;
      const started = clock.now();
      const run = await cli('wait', 'data-01', '--state', 'available', '--timeout', '10', '--interval', '3');
      expect(run.code).toBe(EXIT.timeout);
      expect(clock.now() - started).toBe(10_000);
      expect(polls).toBe(4); // 3 + 3 + 3 + 1 seconds
      expect(run.stderr).toContain('failed: volume data-01 is still pending after 10s; wanted available');
      expect(run.stderr).toMatch(/\nhint: wait again, or with a longer --timeout; `ebs-provisioner volumes get data-01` shows the status\n$/);
    });

    it('says what to do after an attachment failed: retry it, or, while it is detached, wait for the next try or force it', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A);
      const key: RecordKey = { kind: 'attachment', volumeId: 'data-01', instanceId: INSTANCE_A };
      await store.update<AttachmentRecord>(key, { status: { state: 'error', code: 'IncorrectInstanceState', message: 'the instance is terminated', attempts: 8, updatedAt: '2026-01-01T00:00:00.000Z' } });
      const attach = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached');
      expect(attach.code).toBe(EXIT.errorState);
      expect(attach.stderr.trim().split('\n').slice(-2)).toEqual([
        `failed: attachment data-01 → ${INSTANCE_A} failed: the instance is terminated`,
        `hint: fix what the error names, then \`ebs-provisioner volumes retry-attachment data-01 ${INSTANCE_A}\``,
      ]);

      // A detach that failed for good is tried again by the system after its longest backoff.
      await store.update<AttachmentRecord>(key, {
        life: 'dying',
        device: '/dev/sdf',
        status: { state: 'error', code: 'Timeout', message: 'detaching: trying again at 2026-01-01T00:15:00.000Z', attempts: 8, updatedAt: '2026-01-01T00:00:00.000Z', nextAttemptAt: '2026-01-01T00:15:00.000Z' },
      });
      const detach = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'detached');
      expect(detach.code).toBe(EXIT.errorState);
      expect(detach.stderr.trim().split('\n').at(-1)).toBe(
        'hint: fix what the error names (the volume still mounted on the instance, say): the system tries the detach again by itself at its next try; ' +
          `a detach EC2 cannot finish can be forced with \`ebs-provisioner volumes detach data-01 ${INSTANCE_A} --force\`, which may lose data`,
      );
    });

    it('names in its help the states a volume and an attachment can be waited for', async () => {
      const help = (await cli('wait', '--help')).stdout.replace(/\s+/g, ' ');
      expect(help).toContain(
        "--state <states> wanted state(s), comma-separated or repeated, e.g. available,in-use: a volume's (pending, creating, available, in-use, modifying, deleting, deleted, error) " +
          "or, with --attachment, an attachment's (pending, attaching, attached, detaching, detached, error)",
      );
    });

    it('refuses a --state that names no state (exit 2, nothing sent): such a wait could only time out', async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      sent = [];
      for (const states of ['', ',', ' , ']) {
        const run = await cli('wait', 'data-01', '--state', states);
        expect(run.code, JSON.stringify(states)).toBe(EXIT.usage);
        expect(run.stderr, JSON.stringify(states)).toBe('error: --state names no state; use pending, creating, available, in-use, modifying, deleting, deleted, error\n');
      }
      const attachment = await cli('wait', 'data-01', '--attachment', INSTANCE_A, '--state', '');
      expect(attachment.stderr).toBe('error: --state names no state; use pending, attaching, attached, detaching, detached, error\n');
      expect(sent).toEqual([]);
    });
  });

  describe('signing', () => {
    it('signs every request with SigV4 for the given region when asked', async () => {
      const run = await cli('--sigv4', '--region', 'eu-west-1', 'volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'signed');
      expect(run.code).toBe(EXIT.ok);
      expect(sent).toHaveLength(1);
      const headers = sent[0]!.headers;
      expect(headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=accept;content-type;host;x-amz-date, Signature=[0-9a-f]{64}$/,
      );
      expect(headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    });

    it('does not sign requests to the local API', async () => {
      await cli('volumes', 'list');
      expect(sent[0]!.headers.authorization).toBeUndefined();
    });

    it('names where an endpoint that is not a URL came from: the option, or the environment variable', async () => {
      const run = await cli('--endpoint', 'notaurl', 'volumes', 'list');
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toContain('error: --endpoint notaurl: expected an http:// or https:// URL, such as http://127.0.0.1:3000');
      // A host and port without a scheme parses as a URL of scheme `localhost:`: a usage error too, before any request.
      for (const endpoint of ['localhost:3000', 'ftp://127.0.0.1:3000']) {
        const sentBefore = sent.length;
        const scheme = await cli('--endpoint', endpoint, 'volumes', 'list');
        expect(scheme.code, endpoint).toBe(EXIT.usage);
        expect(scheme.stderr, endpoint).toContain(`error: --endpoint ${endpoint}: expected an http:// or https:// URL, such as http://127.0.0.1:3000`);
        expect(sent.length).toBe(sentBefore);
      }
      let stderr = '';
      const code = await runCli(['volumes', 'list'], { stdout: () => {}, stderr: (text) => void (stderr += text), env: { EBS_PROVISIONER_ENDPOINT: 'notaurl' }, isTTY: false, clock });
      expect(code).toBe(EXIT.usage);
      expect(stderr).toContain('error: EBS_PROVISIONER_ENDPOINT notaurl: expected an http:// or https:// URL');
    });

    it('refuses an empty endpoint, saying it is empty, rather than taking it as unset and sending to the local API', async () => {
      const run = await cli('--endpoint', '', 'volumes', 'list');
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toContain('error: --endpoint is empty: expected an http:// or https:// URL, such as http://127.0.0.1:3000\n');
      let stderr = '';
      const code = await runCli(['volumes', 'list'], { stdout: () => {}, stderr: (text) => void (stderr += text), env: { EBS_PROVISIONER_ENDPOINT: '' }, isTTY: false, clock });
      expect(code).toBe(EXIT.usage);
      expect(stderr).toBe(
        'error: EBS_PROVISIONER_ENDPOINT is empty: expected an http:// or https:// URL, such as http://127.0.0.1:3000 (unset EBS_PROVISIONER_ENDPOINT for the local API)\n',
      );
      expect(sent).toEqual([]);
    });

    it('sends no signed request over plain http but to this machine: the signature and session token would cross the network readable', async () => {
      for (const args of [
        ['--endpoint', 'http://abc123defg.execute-api.eu-west-1.amazonaws.com/v1'],
        ['--sigv4', '--region', 'eu-west-1', '--endpoint', 'http://api.example.com'],
      ]) {
        const sentBefore = sent.length;
        const run = await cli(...args, 'volumes', 'list');
        expect(run.code, args.join(' ')).toBe(EXIT.usage);
        expect(run.stderr).toContain(`error: --endpoint ${args[args.length - 1]}: signed requests go over https:// only`);
        expect(sent.length).toBe(sentBefore);
      }
      // The local API and a tunnel to this machine may be signed over http (this one's port: nothing listens there).
      expect((await cli('--sigv4', '--region', 'eu-west-1', 'volumes', 'list')).code).toBe(EXIT.ok);
      for (const endpoint of ['http://localhost:1', 'http://[::1]:1', 'http://127.0.0.2:1']) {
        const run = await cli('--sigv4', '--region', 'eu-west-1', '--endpoint', endpoint, 'volumes', 'list');
        expect(run.code, endpoint).toBe(EXIT.failed);
        expect(run.stderr, endpoint).not.toContain('https:// only');
      }
    });

    it("resolves the SDK's default credentials once for all the requests of a command, not once per request", async () => {
      await cli('volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01');
      defaultChain.resolutions = 0;
      sent = [];
      // No credentials given: the CLI signs with the SDK's default chain.
      const io: CliIo = {
        stdout: () => {},
        stderr: () => {},
        env: { EBS_PROVISIONER_ENDPOINT: server.url },
        isTTY: false,
        clock,
        fetch: (input, init) => {
          sent.push({ url: String(input), method: init?.method ?? 'GET', headers: Object.fromEntries(new Headers(init?.headers)) });
          return fetch(input, init);
        },
      };
      const code = await runCli(['--sigv4', '--region', 'eu-west-1', 'volumes', 'tag', 'data-01', '--tag', 'team=db'], io);
      expect(code).toBe(EXIT.ok);
      expect(sent.map((request) => [request.method, request.headers.authorization?.split('/')[0]])).toEqual([
        ['GET', 'AWS4-HMAC-SHA256 Credential=AKIDDEFAULT'],
        ['PATCH', 'AWS4-HMAC-SHA256 Credential=AKIDDEFAULT'],
      ]);
      expect(defaultChain.resolutions).toBe(1);
    });

    it('says what to set when no AWS credentials can be found to sign with (exit 1, nothing sent)', async () => {
      let stderr = '';
      const io: CliIo = {
        stdout: () => {},
        stderr: (text) => void (stderr += text),
        env: { EBS_PROVISIONER_ENDPOINT: server.url },
        isTTY: false,
        clock,
        // The SDK's default chain finding nothing: its own words name neither where it looked nor what to set.
        credentials: () => Promise.reject(new Error('Could not load credentials from any providers')),
        fetch: (input, init) => {
          sent.push({ url: String(input), method: init?.method ?? 'GET', headers: {} });
          return fetch(input, init);
        },
      };
      const code = await runCli(['--sigv4', '--region', 'eu-west-1', 'volumes', 'list'], io);
      expect(code).toBe(EXIT.failed);
      expect(stderr).toBe(
        'error: no AWS credentials to sign the request with (Could not load credentials from any providers): ' +
          'set AWS_PROFILE (after `aws sso login` for an SSO profile), or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\n',
      );
      expect(sent).toEqual([]);
    });

    it('needs a region to sign', async () => {
      const run = await cli('--sigv4', 'volumes', 'list');
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toBe(
        'error: cannot tell which AWS region to sign for: the URL names none and neither AWS_REGION nor AWS_DEFAULT_REGION is set; pass --region, such as --region us-east-1\n',
      );
    });

    it('signs for the region of AWS_REGION, else of AWS_DEFAULT_REGION, as its --help says', async () => {
      const help = await cli('--help');
      expect(help.stdout.replace(/\s+/g, ' ')).toContain('--region <region> AWS region for signing (default: from the URL, then AWS_REGION, then AWS_DEFAULT_REGION)');
      const scope = async (env: Record<string, string>) => {
        sent = [];
        const io: CliIo = {
          stdout: () => {},
          stderr: () => {},
          env: { EBS_PROVISIONER_ENDPOINT: server.url, ...env },
          isTTY: false,
          clock,
          credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
          fetch: (input, init) => {
            sent.push({ url: String(input), method: init?.method ?? 'GET', headers: Object.fromEntries(new Headers(init?.headers)) });
            return fetch(input, init);
          },
        };
        expect(await runCli(['--sigv4', 'volumes', 'list'], io)).toBe(EXIT.ok);
        return sent[0]?.headers.authorization?.split('/')[2];
      };
      expect(await scope({ AWS_REGION: 'eu-west-1', AWS_DEFAULT_REGION: 'eu-central-1' })).toBe('eu-west-1');
      expect(await scope({ AWS_DEFAULT_REGION: 'eu-central-1' })).toBe('eu-central-1');
    });

    it('says a --region given empty is empty (exit 2, nothing sent), rather than asking for the --region it was given', async () => {
      const run = await cli('--endpoint', 'https://abc123defg.execute-api.eu-west-1.amazonaws.com/v1', '--region', '', 'volumes', 'list');
      expect(run.code).toBe(EXIT.usage);
      expect(run.stderr).toBe('error: --region is empty: give the AWS region to sign for, such as us-east-1, or leave the option out\n');
      expect(sent).toEqual([]);
    });
  });
});
