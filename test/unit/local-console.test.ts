import { describe, expect, it } from 'vitest';
import { consoleLog, tryCommand } from '../../lib/local/console.js';

describe('local runtime console', () => {
  it('stamps each line with the time of day in UTC, marked Z', () => {
    const lines: string[] = [];
    const log = consoleLog({ write: (line) => lines.push(line), now: () => new Date('2026-01-02T03:04:05.678Z') });
    log.info('HTTP API on http://127.0.0.1:3000');
    log.warn('careful', { port: 3000 });
    log.debug('not shown at info');
    expect(lines).toEqual(['03:04:05Z INFO  HTTP API on http://127.0.0.1:3000', '03:04:05Z WARN  careful port=3000']);
  });

  it('suggests attaching to the first demo instance, and without one a volume in the zone instead', () => {
    expect(tryCommand('http://127.0.0.1:3000', ['i-0123456789abcdef0', 'i-1'], 'us-east-1a')).toBe(
      'npx ebs-provisioner --endpoint http://127.0.0.1:3000 volumes create --size 20 --type gp3 --attach i-0123456789abcdef0',
    );
    expect(tryCommand('http://127.0.0.1:3000', [], 'us-east-1a')).toBe(
      'npx ebs-provisioner --endpoint http://127.0.0.1:3000 volumes create --size 20 --type gp3 --az us-east-1a',
    );
  });
});
