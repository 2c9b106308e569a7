/**
 * What the local API server passes between HTTP and the handler: a body of API Gateway's payload
 * limit exactly, a base64-encoded answer (as API Gateway decodes it), and the end of a connection
 * whose answer comes while the server is closing.
 */
import { Agent, request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { GATEWAY_MAX_PAYLOAD_BYTES, startApiServer, type RunningApiServer } from '../../lib/api/node-server.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

function send(url: string, options: { method?: string; body?: Buffer; agent?: Agent } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('local API server answers', () => {
  let server: RunningApiServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it("passes a body of API Gateway's payload limit exactly to the handler", async () => {
    const sizes: number[] = [];
    server = await startApiServer(async (event) => {
      sizes.push(event.body?.length ?? 0);
      return { statusCode: 200, headers: {}, body: '{}' };
    });
    const answer = await send(`${server.url}/volumes`, { method: 'POST', body: Buffer.alloc(GATEWAY_MAX_PAYLOAD_BYTES, 'x') });
    expect(answer.status).toBe(200);
    expect(sizes).toEqual([GATEWAY_MAX_PAYLOAD_BYTES]);
  });

  it('sends a base64-encoded answer decoded, with its length', async () => {
    const bytes = Buffer.from([0, 1, 2, 250, 251, 252]);
    server = await startApiServer(async () => ({ statusCode: 200, headers: {}, body: bytes.toString('base64'), isBase64Encoded: true }));
    const answer = await send(`${server.url}/bytes`);
    expect(answer.body).toEqual(bytes);
    expect(answer.headers['content-length']).toBe(String(bytes.length));
  });

  it('ends the connection of an answer sent while closing', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    const running = await startApiServer(async () => {
      entered();
      await finished;
      return { statusCode: 200, headers: {}, body: '{}' };
    });
    const agent = new Agent({ keepAlive: true });
    try {
      const answer = send(`${running.url}/volumes`, { agent });
      await inHandler;
      const closed = running.close();
      finish();
      expect((await answer).headers.connection).toBe('close');
      await closed;
    } finally {
      agent.destroy();
    }
  });
});
