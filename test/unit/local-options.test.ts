import { CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { readLocalOptions, startFailureMessage, type LocalOptions } from '../../lib/local/options.js';

/** Reads `argv` as `npm start -- <argv>` does; a usage error comes back with what was printed. */
function read(argv: string[], env: NodeJS.ProcessEnv = {}): { options?: LocalOptions; stderr: string; stdout: string } {
  let stderr = '';
  let stdout = '';
  try {
    const options = readLocalOptions(argv, env, (command) =>
      command.exitOverride().configureOutput({ writeErr: (text) => void (stderr += text), writeOut: (text) => void (stdout += text) }),
    );
    return { options, stderr, stdout };
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { stderr, stdout };
  }
}

describe('npm start options', () => {
  it('defaults to the memory backend on port 3000 with two demo instances', () => {
    expect(read([]).options).toEqual({ backend: 'memory', port: 3000, demoInstances: 2, reconcileSeconds: 300, verbose: false, warnings: [] });
  });

  it('takes the moto endpoint from --endpoint, else AWS_ENDPOINT_URL, and says which', () => {
    const env = { AWS_ENDPOINT_URL: 'http://127.0.0.1:5000' };
    expect(read(['--backend', 'moto', '--endpoint', 'http://127.0.0.1:4566'], env).options?.endpoint).toEqual({ url: 'http://127.0.0.1:4566', from: '--endpoint' });
    expect(read(['--backend', 'moto'], env).options?.endpoint).toEqual({ url: 'http://127.0.0.1:5000', from: 'AWS_ENDPOINT_URL' });
    expect(read(['--backend', 'moto']).options?.endpoint).toBeUndefined();
  });

  it.each(['notaurl', 'ftp://127.0.0.1:4566', '127.0.0.1:4566'])('rejects --endpoint %s, naming the option and what it takes', (value) => {
    const { options, stderr } = read(['--backend', 'moto', '--endpoint', value]);
    expect(options).toBeUndefined();
    expect(stderr).toContain(`option '--endpoint <url>' argument '${value}' is invalid`);
    expect(stderr).toContain('expected an http:// or https:// URL, such as http://127.0.0.1:4566');
  });

  it('rejects an AWS_ENDPOINT_URL that is no URL when the moto backend would use it, and ignores it otherwise', () => {
    const env = { AWS_ENDPOINT_URL: 'localhost:4566' };
    const { options, stderr } = read(['--backend', 'moto'], env);
    expect(options).toBeUndefined();
    expect(stderr).toMatch(/^error: AWS_ENDPOINT_URL 'localhost:4566' is invalid: expected an http:\/\/ or https:\/\/ URL/);
    expect(read(['--backend', 'moto', '--endpoint', 'http://127.0.0.1:4566'], env).options?.endpoint?.from).toBe('--endpoint');
    expect(read([], env).options?.warnings).toEqual([]);
  });

  it('names an unknown option and says where the usage is', () => {
    const { options, stderr } = read(['--bogus']);
    expect(options).toBeUndefined();
    expect(stderr).toBe("error: unknown option '--bogus'\n(run with --help for usage)\n");
  });

  it('warns that --endpoint is ignored with the memory backend', () => {
    const { options } = read(['--endpoint', 'http://127.0.0.1:4566']);
    expect(options?.endpoint).toBeUndefined();
    expect(options?.warnings).toEqual(['--endpoint is ignored with --backend memory: it names the AWS endpoint of --backend moto']);
  });

  it('shows the defaults and the limits in --help, the reconciler period included', () => {
    const { options, stdout } = read(['--help']);
    expect(options).toBeUndefined();
    const help = stdout.replace(/\s+/g, ' ');
    expect(help).toContain('--port <port> HTTP API port on 127.0.0.1 (0 picks a free one) (default: 3000)');
    expect(help).toContain('--demo-instances <count> EC2 instances to launch for trying attachments (at most 100) (default: 2)');
    expect(help).toContain('--reconcile-seconds <seconds> reconciler period (at most 2147483, about 24 days) (default: 300)');
  });

  it('rejects a reconciler period past the longest timer Node keeps (2^31 - 1 ms), which would run a pass every millisecond', () => {
    expect(read(['--reconcile-seconds', '2147483']).options?.reconcileSeconds).toBe(2147483);
    const { options, stderr } = read(['--reconcile-seconds', '2147484']);
    expect(options).toBeUndefined();
    expect(stderr).toContain("option '--reconcile-seconds <seconds>' argument '2147484' is invalid. must be a whole number from 1 to 2147483");
  });

  it('rejects more demo instances than one start launches, before anything starts', () => {
    expect(read(['--demo-instances', '100']).options?.demoInstances).toBe(100);
    const { options, stderr } = read(['--demo-instances', '30000000']);
    expect(options).toBeUndefined();
    expect(stderr).toContain("option '--demo-instances <count>' argument '30000000' is invalid. must be a whole number from 0 to 100");
  });

  it('rejects a port out of range and an unknown backend', () => {
    expect(read(['--port', '70000']).stderr).toContain("option '--port <port>' argument '70000' is invalid");
    expect(read(['--backend', 'dynamo']).stderr).toContain("argument 'dynamo' is invalid. Allowed choices are memory, moto.");
  });
});

describe('a failed start', () => {
  const listenError = (code: string) => Object.assign(new Error(`listen ${code}: address already in use 127.0.0.1:3000`), { code, syscall: 'listen' });

  it('names --port when the port is taken, and that --port 0 picks a free one', () => {
    expect(startFailureMessage(listenError('EADDRINUSE'), { port: 3000 })).toBe(
      'port 3000 on 127.0.0.1 is in use: give another with --port N (--port 0 picks a free one)',
    );
  });

  it('says where the endpoint nothing answers at came from', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED', syscall: 'connect' });
    for (const from of ['--endpoint', 'AWS_ENDPOINT_URL'] as const) {
      expect(startFailureMessage(refused, { port: 3000, endpoint: { url: 'http://127.0.0.1:4566', from } })).toBe(
        `nothing answers at the AWS endpoint http://127.0.0.1:4566 (from ${from}): connect ECONNREFUSED 127.0.0.1:4566. ` +
          'Start the emulator there, or run without --endpoint and AWS_ENDPOINT_URL to have the runtime start moto_server',
      );
    }
  });

  it('passes other errors on as they are, naming a given endpoint', () => {
    const missing = new Error("moto_server was not found on PATH; install it with: pip install 'moto[server]'");
    expect(startFailureMessage(missing, { port: 3000 })).toBe(missing.message);
    expect(startFailureMessage(new Error('bad answer'), { port: 3000, endpoint: { url: 'http://127.0.0.1:4566', from: '--endpoint' } })).toBe(
      'the AWS endpoint http://127.0.0.1:4566 (from --endpoint) failed: bad answer',
    );
  });
});
