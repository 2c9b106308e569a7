import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { findMotoServer, startMoto } from '../../lib/local/moto.js';
import { describeWithMoto } from '../support/moto.js';

describeWithMoto('startMoto', () => {
  it('finds moto_server on PATH', () => {
    expect(findMotoServer()).toMatch(/moto_server$/);
  });

  it('runs servers side by side on free loopback ports and stops them for good', async () => {
    const [a, b] = await Promise.all([startMoto(), startMoto()]);
    try {
      expect(a.port).not.toBe(b.port);
      for (const server of [a, b]) {
        expect(server.endpoint).toBe(`http://127.0.0.1:${server.port}`);
        expect((await fetch(`${server.endpoint}/moto-api/`)).ok).toBe(true);
      }
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
    // Refused, not merely slow to answer: a server that hung would time out the same way.
    for (const server of [a, b]) {
      const refused = await fetch(`${server.endpoint}/moto-api/`, { signal: AbortSignal.timeout(2_000) }).catch((error: unknown) => error);
      expect((refused as { cause?: { code?: string } }).cause?.code, server.endpoint).toBe('ECONNREFUSED');
    }
    // Stopping twice is harmless.
    await a.stop();
  });

  /** A server on a loopback port, answering every request as an emulator would, standing for another process that took the port. */
  async function otherServer(): Promise<{ port: number; close(): Promise<unknown> }> {
    const server = createServer((request, response) => response.end('another server'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  async function freePort(): Promise<number> {
    const probe = await otherServer();
    await probe.close();
    return probe.port;
  }

  it('is not taken in by another server that took its port first: moto_server starts on another port', async () => {
    const other = await otherServer();
    const given: number[] = [];
    try {
      const server = await startMoto({ port: async () => (given.push(given.length === 0 ? other.port : await freePort()), given.at(-1)!) });
      try {
        expect(given).toHaveLength(2);
        expect(server.port).toBe(given[1]);
        const answer = await fetch(`${server.endpoint}/moto-api/`);
        expect(answer.ok).toBe(true);
        expect(await answer.text()).not.toBe('another server');
      } finally {
        await server.stop();
      }
    } finally {
      await other.close();
    }
  });

  it('fails naming the ports when another server took each port it was given first', async () => {
    const other = await otherServer();
    try {
      const error = (await startMoto({ port: async () => other.port }).catch((e: unknown) => e)) as Error;
      expect(error.message).toMatch(
        new RegExp(
          `^moto_server could not bind a port: another process took each of the 3 free ports it was given \\((${other.port}, ){2}${other.port}\\) first; ` +
            `its last attempt said: moto_server exited before it was ready \\(code 1\\): [^]*Address already in use`,
        ),
      );
    } finally {
      await other.close();
    }
  });
}, { server: false });
