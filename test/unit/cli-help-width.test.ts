/**
 * Every --help fits an 80-column terminal (the width commander gives help when the output is not a
 * terminal): descriptions beside long command or option terms are wrapped too.
 */
import { describe, expect, it } from 'vitest';
import { cliHelp } from './cli-harness.js';

const WIDTH = 80;

/** The subcommands a help text lists under `Commands:`, `help` left out. */
function helpCommands(text: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(text)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

describe('--help', () => {
  it('has no line past 80 columns, for the program and each of its commands', async () => {
    const seen: string[][] = [];
    const pending: string[][] = [[]];
    while (pending.length > 0) {
      const words = pending.shift()!;
      const help = await cliHelp(words);
      seen.push(words);
      for (const line of help.split('\n')) expect(line.length, `${['ebs-provisioner', ...words].join(' ')} --help: ${line}`).toBeLessThanOrEqual(WIDTH);
      pending.push(...helpCommands(help).map((command) => [...words, command]));
    }
    // The program, its groups and each command in them.
    expect(seen.length).toBeGreaterThan(15);
    expect(seen).toContainEqual(['volumes', 'retry-attachment']);
  });
});
