/**
 * `measureFunctionCpu` refuses a lifecycle count that is not a whole number of at least 1 before it
 * makes anything in the emulator (the command line refuses such counts too; this is the library's
 * own check).
 */
import { describe, expect, it, vi } from 'vitest';

const created = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../lib/local/moto-backend.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../lib/local/moto-backend.js')>();
  return {
    ...actual,
    createMotoBackend: async () => {
      created.count += 1;
      throw new Error('no emulator in this test');
    },
  };
});

const { measureFunctionCpu } = await import('../../bench/cpu.js');

describe('measureFunctionCpu, a lifecycle count it cannot run', () => {
  it.each([0, -1, 2.5, Number.NaN])('refuses %s with a RangeError naming it, and makes nothing', async (lifecycles) => {
    await expect(measureFunctionCpu({ lifecycles })).rejects.toThrow(
      new RangeError(`lifecycles must be a whole number of at least 1, got ${lifecycles}`),
    );
    expect(created.count).toBe(0);
  });

  it('goes on to make its backend for 1 lifecycle', async () => {
    await expect(measureFunctionCpu({ lifecycles: 1 })).rejects.toThrow('no emulator in this test');
    expect(created.count).toBe(1);
  });
});
