/** The local API server with requests in absolute form, a request that never finishes, and a second close. */
import { request } from 'node:http';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLOSE_GRACE_MS, startApiServer } from '../../lib/api/node-server.js';

/** Sends `method target` as the request line, as sent; resolves with the status, or rejects when the connection is dropped. */
function send(url: string, target: string, method = 'GET'): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path: target, method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('local API server', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('routes a request whose target is in absolute form (as sent to a proxy) on its path', async () => {
    const paths: string[] = [];
    const server = await startApiServer(async (event) => {
      paths.push(event.path);
      return { statusCode: 200, headers: {}, body: '{}' };
    });
    try {
      expect((await send(server.url, 'http://ebs.example.com/volumes/data-01?limit=1')).status).toBe(200);
      expect(paths).toEqual(['/volumes/data-01']);
    } finally {
      await server.close();
    }
  });

  it('closing ends a request still under way once its grace is over, so the close finishes', async () => {
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const server = await startApiServer(async () => {
      entered();
      return new Promise(() => undefined);
    });
    const answer = send(server.url, '/volumes', 'POST');
    answer.catch(() => undefined);
    await inHandler;
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let closed = false;
    const closing = server.close().then(() => (closed = true));
    await vi.advanceTimersByTimeAsync(CLOSE_GRACE_MS - 1);
    expect(closed).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();
    await closing;
    expect(closed).toBe(true);
    await expect(answer).rejects.toThrow();
  });

  it('a second close is refused: the server is not running', async () => {
    const server = await startApiServer(async () => ({ statusCode: 200, headers: {}, body: '{}' }));
    await server.close();
    await expect(server.close()).rejects.toThrow(/not running/);
  });
});
