/**
 * `wait` on an attachment whose volume failed for a spec field EC2 refused (an AZ, say): its hint
 * names the fix the README gives for that, `volumes modify`, which is the retry too, as the hint
 * of a wait on the volume itself does; a `volumes retry` after that fix is refused.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EXIT } from '../../cli/main.js';
import { INSTANCE_A } from './api-fixtures.js';
import { cliHarness } from './cli-harness.js';

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
const SPEC_FIX = '(a spec field EC2 refused is put right with `ebs-provisioner volumes modify data-01`, which retries too)';

describe('CLI wait on an attachment whose volume EC2 refused to create', () => {
  const h = cliHarness();

  it('hints at the spec fix that retries, as for the volume, and the fix it names takes the place of the retry', async () => {
    await h.cli(['volumes', 'create', '--az', 'us-east-1z', '--size', '20', '--id', 'data-01', '--attach', INSTANCE_A]);
    await h.setVolumeState('data-01', 'error', { code: 'InvalidZone.NotFound', message: "The zone 'us-east-1z' does not exist.", attempts: 1 });

    const onVolume = await h.cli(['wait', 'data-01', '--state', 'available']);
    const onAttachment = await h.cli(['wait', 'data-01', '--attachment', INSTANCE_A, '--state', 'attached']);
    expect(onVolume.code).toBe(EXIT.errorState);
    expect(onAttachment.code).toBe(EXIT.errorState);
    expect(onVolume.stderr.trim().split('\n').at(-1)).toBe(`hint: fix what the error names, then \`ebs-provisioner volumes retry data-01\` ${SPEC_FIX}`);
    expect(onAttachment.stderr.trim().split('\n').at(-1)).toBe(
      `hint: fix what the volume's error names, then \`ebs-provisioner volumes retry data-01\` ${SPEC_FIX}: the attach follows`,
    );

    // The README's fix for a spec field EC2 refused at creation: the spec put right is the retry too.
    expect(readme).toContain('`volumes modify <id> --az us-east-1b`) while no volume was created, which is the retry too');
    const fixed = await h.cli(['volumes', 'modify', 'data-01', '--az', 'us-east-1b']);
    expect(fixed.code).toBe(EXIT.ok);
    expect(fixed.stdout).toMatch(/^State: +pending$/m);
    const retried = await h.cli(['volumes', 'retry', 'data-01']);
    expect(retried.code).toBe(EXIT.failed);
    expect(retried.stderr).toContain('volume data-01 is pending, not in error: there is nothing to retry');
  });
});
