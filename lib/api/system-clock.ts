import type { Clock } from '../engine/ports.js';

/** The wall clock, for production entry points (the API function, the CLI); tests inject a fake. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
