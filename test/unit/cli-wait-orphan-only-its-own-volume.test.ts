/**
 * `wait --attachment` for a volume whose record does not exist looks through the instance's
 * attachments for that volume's attachment only: another volume's attachment to the instance is not
 * taken for it.
 */
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness } from './cli-harness.js';

describe("CLI wait on a missing volume's attachment to an instance with others", () => {
  const h = cliHarness();

  it('says the volume does not exist (exit 1) though the instance has another volume attached', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1a', '--size', '20', '--id', 'data-02', '--attach', INSTANCE_A]);
    const run = await h.cli(['-o', 'json', 'wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached', '--timeout', '0']);
    expect(run.code).toBe(EXIT.failed);
    expect(run.json).toEqual({ result: 'not-found', state: 'detached', message: 'volume data-01 does not exist' });
  });
});
