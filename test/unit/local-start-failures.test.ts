/** What a start of the local runtime that failed on its port tells the user to do. */
import { describe, expect, it } from 'vitest';
import { startFailureMessage } from '../../lib/local/options.js';

describe('a start refused its port', () => {
  it('says a port this user may not use (below 1024, as a user without the right) is refused, naming --port', () => {
    const refused = Object.assign(new Error('listen EACCES: permission denied 127.0.0.1:80'), { code: 'EACCES', syscall: 'listen' });
    expect(startFailureMessage(refused, { port: 80 })).toBe('port 80 on 127.0.0.1 may not be used by this user: give another with --port N (--port 0 picks a free one)');
  });

  it('leaves an EACCES of anything but the listen (a file, say) as its own message', () => {
    const unreadable = Object.assign(new Error("EACCES: permission denied, open '/tmp/moto.log'"), { code: 'EACCES', syscall: 'open' });
    expect(startFailureMessage(unreadable, { port: 3000 })).toBe("EACCES: permission denied, open '/tmp/moto.log'");
  });
});
