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
}, { server: false });
