/**
 * The local API server ends a connection with its answer only while it is closing: an answer sent
 * while it is open leaves a keep-alive connection open for the client's next request.
 */
import { Agent, request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startApiServer } from '../../lib/api/node-server.js';

function send(url: string, agent: Agent): Promise<{ connection: string | undefined; socket: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ connection: res.headers.connection, socket: req.socket }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the local server while it is open', () => {
  it('keeps the connection of an answer open for the next request', async () => {
    const running = await startApiServer(async () => ({ statusCode: 200, headers: {}, body: '{}' }));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await send(`${running.url}/volumes`, agent);
      expect(first.connection).toBe('keep-alive');
      const second = await send(`${running.url}/volumes`, agent);
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
      await running.close();
    }
  });
});
