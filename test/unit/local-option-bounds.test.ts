/** `npm start`'s options at their documented bounds, and how a failed start against an endpoint reads. */
import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { readLocalOptions, startFailureMessage, type LocalOptions } from '../../lib/local/options.js';

function read(argv: string[], env: NodeJS.ProcessEnv = {}): { options?: LocalOptions; stderr: string } {
  let stderr = '';
  try {
    const options = readLocalOptions(argv, env, (command) => command.exitOverride().configureOutput({ writeErr: (text) => void (stderr += text), writeOut: () => {} }));
    return { options, stderr };
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { stderr };
  }
}

describe('npm start options at their bounds', () => {
  it('takes ports 0 (a free one) to 65535, and refuses 65536', () => {
    expect(read(['--port', '0']).options?.port).toBe(0);
    expect(read(['--port', '65535']).options?.port).toBe(65535);
    const { options, stderr } = read(['--port', '65536']);
    expect(options).toBeUndefined();
    expect(stderr).toContain("option '--port <port>' argument '65536' is invalid. must be a whole number from 0 to 65535");
  });

  it('takes an https:// endpoint, from --endpoint and from AWS_ENDPOINT_URL', () => {
    expect(read(['--backend', 'moto', '--endpoint', 'https://localhost.localstack.cloud:4566']).options?.endpoint).toEqual({ url: 'https://localhost.localstack.cloud:4566', from: '--endpoint' });
    expect(read(['--backend', 'moto'], { AWS_ENDPOINT_URL: 'https://127.0.0.1:4566' }).options?.endpoint).toEqual({ url: 'https://127.0.0.1:4566', from: 'AWS_ENDPOINT_URL' });
  });

  it('logs debug lines with --verbose', () => {
    expect(read(['--verbose']).options?.verbose).toBe(true);
  });
});

describe('a failed start against an endpoint', () => {
  const endpoint = { url: 'http://127.0.0.1:4566', from: '--endpoint' as const };

  it.each(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT'])('says nothing answers there when the connection fails with %s', (code) => {
    const error = Object.assign(new Error(`connect ${code} 127.0.0.1:4566`), { code });
    expect(startFailureMessage(error, { port: 3000, endpoint })).toMatch(/^nothing answers at the AWS endpoint http:\/\/127\.0\.0\.1:4566 \(from --endpoint\)/);
  });

  it("says nothing answers there when the SDK's request timed out", () => {
    const error = Object.assign(new Error('Connection timed out after 2000 ms'), { name: 'TimeoutError' });
    expect(startFailureMessage(error, { port: 3000, endpoint })).toMatch(/^nothing answers at the AWS endpoint /);
  });

  it('gives a thrown value that is not an Error as text', () => {
    expect(startFailureMessage(null, { port: 3000 })).toBe('null');
    expect(startFailureMessage(undefined, { port: 3000 })).toBe('undefined');
  });
});
