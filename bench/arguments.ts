/** Command-line argument parsers shared by the benchmark commands. */
import { InvalidArgumentError } from 'commander';

/** Parses a whole number of at least 1 (a count, a seed, a rate); anything else is refused with a clear message. */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`must be a positive integer, got "${value}"`);
  return n;
}
