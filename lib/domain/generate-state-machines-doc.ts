/** Writes docs/state-machines.md from the transition tables: `npm run docs`. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stateMachinesMarkdown } from './state-machines.js';

const target = join(import.meta.dirname, '..', '..', 'docs', 'state-machines.md');
writeFileSync(target, stateMachinesMarkdown());
console.log(`wrote ${target}`);
