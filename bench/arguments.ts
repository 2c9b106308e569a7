/** Command-line argument parsers shared by the benchmark commands. */
import { InvalidArgumentError } from 'commander';

export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`must be a positive integer, got "${value}"`);
  return n;
}
