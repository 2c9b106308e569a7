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
    await expect(fetch(`${a.endpoint}/moto-api/`, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
    // Stopping twice is harmless.
    await a.stop();
  });
}, { server: false });
