/**
 * The CLI's commands, their arguments, options and defaults as docs/api.md's table of them states,
 * read from the program's own --help.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cliHelp as help } from './cli-harness.js';

const doc = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');

interface HelpOption {
  flag: string;
  defaultValue?: string;
}

/** The default commander shows for an option: `(default: "gp3")`, `(default: 600)`, `(choices: …, default: "table")`. */
function commanderDefault(line: string): string | undefined {
  const match = /default: (?:"([^"]*)"|(\d+))\)$/.exec(line);
  return match ? (match[1] ?? match[2]) : undefined;
}

/** The long flags (and their defaults) of a help text's `Options:` section, --help left out. */
function helpOptions(text: string): HelpOption[] {
  const section = /\nOptions:\n([\s\S]*?)(?:\n\n|$)/.exec(text)?.[1] ?? '';
  const options: HelpOption[] = [];
  for (const line of section.replace(/\n {20,}/g, ' ').split('\n')) {
    const flag = /^\s+(?:-\w, )?(--[a-z0-9-]+)/.exec(line)?.[1];
    if (flag === undefined || flag === '--help') continue;
    const defaultValue = commanderDefault(line);
    options.push(defaultValue === undefined ? { flag } : { flag, defaultValue });
  }
  return options;
}

/** The subcommands a help text lists under `Commands:`, `help` left out. */
function helpCommands(text: string): string[] {
  const section = /\nCommands:\n([\s\S]*?)(?:\n\n|$)/.exec(text)?.[1] ?? '';
  return [...section.matchAll(/^ {2}([a-z-]+)/gm)].map((match) => match[1]!).filter((name) => name !== 'help');
}

/** docs/api.md's table of commands: each row's command (with its arguments) and options cell. */
function documentedRows(): Map<string, string> {
  const table = doc.slice(doc.indexOf('| command | options |'));
  const rows = new Map<string, string>();
  for (const line of table.split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [command, options] = line.slice(1, -1).split(/ \| /).map((cell) => cell.trim());
    rows.set(command!.replace(/`/g, ''), options!);
  }
  return rows;
}

/** The long flags an options cell names in code spans: `--size <GiB>`, `-o, --output table|json`. */
function documentedFlags(cell: string): Set<string> {
  return new Set([...cell.matchAll(/`(?:-\w, )?(--[a-z0-9-]+)[^`]*`/g)].map((match) => match[1]!));
}

describe('the CLI as docs/api.md documents it', () => {
  it('has a row for each command it runs, with that command\'s arguments', async () => {
    const rows = documentedRows();
    const commands: string[] = [];
    for (const group of helpCommands(await help([]))) {
      const groupHelp = await help([group]);
      const subcommands = helpCommands(groupHelp);
      if (subcommands.length === 0) commands.push(group);
      for (const sub of subcommands) commands.push(`${group} ${sub}`);
    }
    const documented = [...rows.keys()].filter((row) => row !== '(every command)');
    const usages = await Promise.all(
      commands.map(async (command) => {
        const usage = /^Usage: ebs-provisioner (.*)$/m.exec(await help(command.split(' ')))![1]!;
        return usage.replace(' [options]', '');
      }),
    );
    expect(documented.sort()).toEqual(usages.sort());
  });

  it('names each option of each command in its row, and each default the help gives', async () => {
    for (const [row, cell] of documentedRows()) {
      const words = row === '(every command)' ? [] : row.split(' ').filter((word) => !word.startsWith('<'));
      const options = helpOptions(await help(words));
      expect([...documentedFlags(cell)].sort(), row).toEqual(options.map((option) => option.flag).sort());
      for (const { flag, defaultValue } of options) {
        if (defaultValue === undefined) continue;
        // The parenthesis after the option's code span: `(default 600; …)`, `(default \`X\`, else \`Y\`)`.
        const stated = new RegExp(`\`(?:-\\w, )?${flag}[^\`]*\`[^,|(]*\\(default ([^)]*)\\)`).exec(cell)?.[1] ?? '';
        expect(stated.split(/[,;]/).map((part) => part.replace(/`/g, '').trim().replace(/^else /, '').split(' ')[0]), `${row} ${flag}`).toContain(defaultValue);
      }
    }
  });
});

describe("volumes grow's help", () => {
  it("says which volumes it leaves as they are as docs/api.md's row does: one asking for as much or more", async () => {
    const note = /\(required; (.*)\)$/.exec(documentedRows().get('volumes grow <volumeId>')!)![1]!;
    expect(note).toBe('a volume already asking for as much or more is left as it is');
    expect((await help(['volumes', 'grow'])).replace(/\s+/g, ' ')).toContain(`(${note})`);
  });
});
