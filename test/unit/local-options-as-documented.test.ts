/** `npm start`'s options, defaults and limits as the option tables of the README and docs/local.md state them. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { localCommand } from '../../lib/local/options.js';

interface DocumentedOption {
  flag: string;
  /** The default column, code spans unwrapped: `memory`, `3000`, `AWS_ENDPOINT_URL`, `off`. */
  defaultValue: string;
  meaning: string;
}

/** The rows of a document's table of `npm start` options (the one whose first row is `--backend`). */
function documentedOptions(path: string): DocumentedOption[] {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  const table = text.slice(text.indexOf('| `--backend '));
  const rows: DocumentedOption[] = [];
  for (const line of table.split('\n')) {
    if (!line.startsWith('| `--')) break;
    const [option, defaultValue, meaning] = line.slice(1, -1).split(/ \| /).map((cell) => cell.trim());
    rows.push({ flag: /^`(--[a-z-]+)/.exec(option!)![1]!, defaultValue: defaultValue!.replace(/`/g, ''), meaning: meaning! });
  }
  return rows;
}

const atMost = (text: string) => /at most (\d+)/.exec(text)?.[1];

describe.each(['README.md', 'docs/local.md'])("npm start's options as %s states them", (path) => {
  const documented = documentedOptions(path);
  const options = localCommand().options.filter((option) => option.long !== '--help');

  it('lists every option npm start takes, and only those', () => {
    expect(documented.map((row) => row.flag).sort()).toEqual(options.map((option) => option.long).sort());
  });

  it('gives each option the default and the limit npm start applies', () => {
    for (const option of options) {
      const row = documented.find((entry) => entry.flag === option.long)!;
      if (option.defaultValue !== undefined) expect(row.defaultValue, option.long).toBe(String(option.defaultValue));
      else if (option.long === '--endpoint') {
        // No default of its own: the moto backend falls back to the environment's endpoint.
        expect(option.description).toContain(`(default ${row.defaultValue})`);
      } else expect(row.defaultValue, option.long).toBe('off');
      expect(atMost(row.meaning), option.long).toBe(atMost(option.description));
    }
  });
});
