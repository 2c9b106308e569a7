import { describe, expect, it } from 'vitest';
import { consoleLog, tryCommand } from '../../lib/local/console.js';

describe('local runtime console', () => {
  it('writes the lines of the level it is given and of every more severe one: debug, info, warn, error', () => {
    const now = () => new Date('2026-01-02T03:04:05Z');
    const linesAt = (level: 'debug' | 'info' | 'warn' | 'error') => {
      const lines: string[] = [];
      const log = consoleLog({ level, write: (line) => lines.push(line), now });
      log.debug('d');
      log.info('i');
      log.warn('w');
      log.error('e');
      return lines.map((line) => line.split(/ +/)[1]);
    };
    expect(linesAt('debug')).toEqual(['DEBUG', 'INFO', 'WARN', 'ERROR']);
    expect(linesAt('info')).toEqual(['INFO', 'WARN', 'ERROR']);
    expect(linesAt('warn')).toEqual(['WARN', 'ERROR']);
    expect(linesAt('error')).toEqual(['ERROR']);
  });

  it('suggests attaching to the demo instance when there is only one', () => {
    expect(tryCommand('http://127.0.0.1:3000', ['i-0123456789abcdef0'], 'us-east-1a')).toBe(
      'npx ebs-provisioner --endpoint http://127.0.0.1:3000 volumes create --size 20 --type gp3 --attach i-0123456789abcdef0',
    );
  });
});
