/** `wait` through answers that are not the API's problems, and its usage for an attachment. */
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_STATES } from '../../lib/domain/records.js';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness } from './cli-harness.js';

describe('CLI wait', () => {
  const h = cliHarness();

  it("polls on through API Gateway's own 504 and a 503 without a body, naming each in its progress", async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-01']);
    const answers = [
      () => new Response('{"message": "Endpoint request timed out"}', { status: 504, headers: { 'content-type': 'application/json' } }),
      () => new Response(null, { status: 503, statusText: 'Service Unavailable' }),
    ];
    h.answer = () => answers.shift()?.();
    h.clock.onSleep = async () => void (answers.length === 0 && (await h.setVolumeState('data-01', 'available')));
    const run = await h.cli(['wait', 'data-01', '--state', 'available']);
    expect(run.code).toBe(EXIT.ok);
    expect(run.stderr.trim().split('\n')).toEqual([
      'volume data-01: the API answered 504 Endpoint request timed out; trying again',
      'volume data-01: the API answered 503 Service Unavailable; trying again',
      'done: volume data-01 is available (after 4s)',
    ]);
  });

  it("refuses a volume's state for an attachment (exit 2, nothing sent), naming an attachment's", async () => {
    const run = await h.cli(['wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'available']);
    expect(run.code).toBe(EXIT.usage);
    expect(run.stderr).toBe(`error: unknown state available for an attachment; use ${ATTACHMENT_STATES.join(', ')}\n`);
    expect(h.sent).toEqual([]);
  });
});
