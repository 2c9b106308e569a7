/**
 * `npm run bench:cpu` stopped by a signal exits with that signal's status (128 + its number):
 * 143 for SIGTERM, as 130 for SIGINT.
 */
import { expect, it } from 'vitest';
import { runCpuCommand } from '../../bench/cpu-command.js';

it('stopped by SIGTERM, says so and exits 143', async () => {
  const stop = new AbortController();
  stop.abort('SIGTERM');
  const err: string[] = [];
  const status = await runCpuCommand([], {
    measure: async () => {
      throw 'SIGTERM';
    },
    motoInstalled: () => true,
    out: () => undefined,
    err: (line) => err.push(line),
    signal: stop.signal,
  });
  expect(status).toBe(143);
  expect(err).toEqual(['stopped by SIGTERM; nothing measured']);
});
