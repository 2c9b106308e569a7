/** Option values refused before any request: an endpoint with only a password, a tag without a key. */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { cliHarness } from './cli-harness.js';

describe('CLI refuses before sending', () => {
  const h = cliHarness();

  it('an endpoint holding a password without a user name (exit 2, nothing sent, the password not printed)', async () => {
    const run = await h.cli(['--endpoint', 'http://:s3cret@127.0.0.1:3000', 'volumes', 'list']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toBe(
      'error: --endpoint holds a user name or password (user:password@): the API takes none in its URL; give it without them, such as http://127.0.0.1:3000\n',
    );
    expect(h.sent).toEqual([]);
  });

  it('a tag with an empty key (exit 2, nothing sent): a tag is key=value', async () => {
    const run = await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--tag', '=web']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toContain('must be key=value');
    expect(h.sent).toEqual([]);
  });
});
