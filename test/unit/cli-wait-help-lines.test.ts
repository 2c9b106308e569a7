/**
 * `wait --help`'s closing notes are written as the terminal shows them: lines of at most 80
 * columns, each filled as far as its paragraph's next word allows (a short line only at a
 * paragraph's end, a sentence ending there and the next line beginning a new one).
 */
import { describe, expect, it } from 'vitest';
import { cliHelp } from './cli-harness.js';

const WIDTH = 80;

describe('wait --help', () => {
  it('wraps its closing notes at 80 columns, each line as full as the next word allows', async () => {
    const help = await cliHelp(['wait']);
    const notes = help.slice(help.indexOf('\nA removed record') + 1).trimEnd().split('\n');
    expect(notes.length).toBeGreaterThan(10);
    for (const [index, line] of notes.entries()) {
      expect(line.length, line).toBeLessThanOrEqual(WIDTH);
      const next = notes[index + 1];
      if (next === undefined) continue;
      const paragraphEnds = /\.$/.test(line) && /^[A-Z]/.test(next);
      if (!paragraphEnds) expect(line.length + 1 + next.split(' ')[0]!.length, `${line} / ${next}`).toBeGreaterThan(WIDTH);
    }
  });
});
