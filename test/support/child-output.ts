/** A child process's output, read as lines, for tests that wait for what it prints. */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

export interface ChildOutput {
  /** The whole lines it wrote to stdout so far. */
  lines: string[];
  /** What it wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the first stdout line matching `pattern`; throws, with both outputs, once the child has exited or `timeoutMs` has passed. */
  lineMatching(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

export function outputOf(child: ChildProcessWithoutNullStreams): ChildOutput {
  const lines: string[] = [];
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return {
    lines,
    stderr: () => stderr,
    async lineMatching(pattern, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const line of lines) {
          const match = line.match(pattern);
          if (match) return match;
        }
        if (child.exitCode !== null || Date.now() > deadline) {
          throw new Error(`no line matching ${String(pattern)}; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
  };
}
