/** Reading the command lines of `npm start` and the `ebs-provisioner` CLI alike. */
import { InvalidArgumentError } from 'commander';
import { readWholeNumber, wholeNumberMessage, type WholeNumberRange } from './api/parse.js';

/** The longest period in seconds a timer can wait: Node's timers hold at most 2^31 - 1 ms, and a longer one fires at once. */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** A commander option reader for a whole number in `range`; the message says the range. */
export function wholeNumberOption(range: WholeNumberRange): (value: string) => number {
  return (value) => {
    const number = readWholeNumber(value, range);
    if (number === undefined) throw new InvalidArgumentError(wholeNumberMessage(range));
    return number;
  };
}
