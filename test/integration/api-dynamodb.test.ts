import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import type { VolumeRecord } from '../../lib/domain/records.js';
import { createApiHandler } from '../../lib/api/handler.js';
import { startApiServer, type RunningApiServer } from '../../lib/api/node-server.js';
import type { AwsClients } from '../../lib/aws/clients.js';
import { DynamoRecordStore } from '../../lib/aws/dynamodb-store.js';
import { DynamoRateBudget } from '../../lib/aws/dynamodb-rate-budget.js';
import { ensureRateBudgetTable, ensureTable } from '../../lib/aws/table.js';
import { DEFAULT_ENGINE_CONFIG } from '../../lib/engine/config.js';
import { FakeClock } from '../../lib/memory/clock.js';
import { EXIT, runCli } from '../../cli/main.js';
import { describeWithMoto, motoClients } from '../support/moto.js';

const INSTANCE = 'i-0123456789abcdef0';

/** The HTTP API over the DynamoDB record store, on moto: real conditional writes, scans, GSI. */
describeWithMoto('HTTP API on the DynamoDB store (moto)', (endpoint) => {
  let clients: AwsClients;
  let server: RunningApiServer;
  let tableName: string;
  let tables = 0;
  let handler: ReturnType<typeof createApiHandler>;

  beforeAll(async () => {
    clients = motoClients(endpoint());
    server = await startApiServer((event, context) => handler(event, context));
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(async () => {
    tableName = `api-records-${++tables}`;
    await ensureTable(clients.dynamo, tableName);
    handler = createApiHandler({ store: new DynamoRecordStore({ client: clients.doc, tableName }), clock: new FakeClock() });
  });

  const items = async () => (await clients.doc.send(new ScanCommand({ TableName: tableName }))).Items ?? [];
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  };

  it('creates idempotently, rejects another spec, and writes nothing for bad input', async () => {
    const request = { volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3' }, attachTo: { instanceId: INSTANCE } };
    expect((await call('POST', '/volumes', request)).status).toBe(201);
    expect((await call('POST', '/volumes', request)).status).toBe(200);
    const before = await items();
    expect(before).toHaveLength(2); // the volume and its attachment

    expect((await call('POST', '/volumes', { ...request, spec: { sizeGiB: 30, volumeType: 'gp3' } })).status).toBe(409);
    const malformed = await fetch(`${server.url}/volumes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"spec":' });
    expect(malformed.status).toBe(400);
    expect((await call('POST', '/volumes', { spec: { sizeGiB: 20, volumeType: 'gp3', size: 1 } })).status).toBe(400);
    // Beyond gp3's 16 TiB (a volume not yet created may still shrink: nothing in EBS holds it).
    expect((await call('PATCH', '/volumes/data-01', { sizeGiB: 70_000 })).status).toBe(400);
    expect(await items()).toEqual(before);
  });

  it('shows how long a pending volume\'s CreateVolume waits in line, from the rate budget table the executors take from', async () => {
    const clock = new FakeClock();
    const rateBudget = new DynamoRateBudget({ client: clients.doc, tableName: `${tableName}-rate-budget` });
    await ensureRateBudgetTable(clients.dynamo, `${tableName}-rate-budget`);
    handler = createApiHandler({ store: new DynamoRecordStore({ client: clients.doc, tableName }), clock, rateBudget });
    const created = await call('POST', '/volumes', { volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
    expect(created.json.rateWait).toBeUndefined(); // nobody took a token yet
    // Executors took 300 CreateVolume tokens: a new call would start at 41.2 s.
    await rateBudget.take('CreateVolume', 300, DEFAULT_ENGINE_CONFIG.accountRateBudgets.CreateVolume, clock.now(), 3_600_000);
    expect((await call('GET', '/volumes/data-01')).json.rateWait).toEqual({ action: 'CreateVolume', seconds: 42 });
    await clock.advance(40_000);
    expect((await call('GET', '/volumes/data-01')).json.rateWait).toEqual({ action: 'CreateVolume', seconds: 2 });
  });

  it('pages with the store cursor and filters by instance through the index', async () => {
    for (let i = 1; i <= 5; i++) await call('POST', '/volumes', { volumeId: `v${i}`, spec: { sizeGiB: 10, volumeType: 'gp3', availabilityZone: 'us-east-1a' } });
    await call('PUT', `/volumes/v3/attachments/${INSTANCE}`);
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const { json } = await call('GET', `/volumes?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      const page = json as { items: Array<{ volumeId: string }>; cursor?: string };
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((v) => v.volumeId));
      cursor = page.cursor;
    } while (cursor);
    expect(seen.sort()).toEqual(['v1', 'v2', 'v3', 'v4', 'v5']);

    const byInstance = await call('GET', `/volumes?instanceId=${INSTANCE}`);
    expect((byInstance.json.items as Array<{ volumeId: string }>).map((v) => v.volumeId)).toEqual(['v3']);
    const forged = await call('GET', `/volumes?cursor=${Buffer.from('{"filter":"|","store":"forged"}').toString('base64url')}`);
    expect(forged.status).toBe(400);
  });

  it('refuses a stale If-Match with 412, also when the change lands between the read and the conditional write', async () => {
    const store = new DynamoRecordStore({ client: clients.doc, tableName });
    handler = createApiHandler({ store, clock: new FakeClock() });
    const created = await fetch(`${server.url}/volumes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ volumeId: 'data-01', spec: { sizeGiB: 20, volumeType: 'gp3', availabilityZone: 'us-east-1a' } }),
    });
    const tag1 = created.headers.get('etag')!;
    expect(tag1).toMatch(/^"1\.[0-9a-z]+"$/);
    const tag2 = tag1.replace('"1.', '"2.');
    const patch = (ifMatch: string, sizeGiB: number) =>
      fetch(`${server.url}/volumes/data-01`, { method: 'PATCH', headers: { 'content-type': 'application/json', 'if-match': ifMatch }, body: JSON.stringify({ sizeGiB }) });

    const grown = await patch(tag1, 30);
    expect(grown.status).toBe(200);
    expect(grown.headers.get('etag')).toBe(tag2);
    const stale = await patch(tag1, 40);
    expect(stale.status).toBe(412);
    expect(stale.headers.get('etag')).toBe(tag2);

    // Another client's change lands just before the API's write: DynamoDB's condition on the generation refuses it.
    const update = store.update.bind(store);
    let raced = false;
    store.update = async (key, changes, condition) => {
      if (!raced) {
        raced = true;
        await update<VolumeRecord>(key, { spec: { sizeGiB: 35, volumeType: 'gp3', availabilityZone: 'us-east-1a' }, generation: 3 });
      }
      return update(key, changes, condition);
    };
    const raceLost = await patch(tag2, 50);
    expect(raceLost.status).toBe(412);
    expect(((await raceLost.json()) as { detail: string }).detail).toContain('generation 3');
    expect(await items()).toEqual([expect.objectContaining({ generation: 3, spec: { sizeGiB: 35, volumeType: 'gp3', availabilityZone: 'us-east-1a' } })]);
  });

  it('drives a volume through the CLI: grow, attach, detach, delete', async () => {
    const io = {
      stdout: () => undefined,
      stderr: () => undefined,
      env: { EBS_PROVISIONER_ENDPOINT: server.url },
      isTTY: false,
      clock: new FakeClock(),
    };
    expect(await runCli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'cli-01'], io)).toBe(EXIT.ok);
    expect(await runCli(['volumes', 'grow', 'cli-01', '--size', '40'], io)).toBe(EXIT.ok);
    expect(await runCli(['volumes', 'attach', 'cli-01', INSTANCE, '--device', '/dev/sdf'], io)).toBe(EXIT.ok);
    expect(await runCli(['volumes', 'detach', 'cli-01', INSTANCE], io)).toBe(EXIT.ok);
    expect(await runCli(['volumes', 'delete', 'cli-01'], io)).toBe(EXIT.ok);
    const { json } = await call('GET', '/volumes/cli-01');
    expect(json).toMatchObject({
      life: 'dying',
      generation: 2,
      spec: { sizeGiB: 40 },
      attachments: [{ instanceId: INSTANCE, life: 'dying', requestedDevice: '/dev/sdf' }],
    });
  });
});
