/**
 * The executor's EC2 statements (infra/constructs/ec2-policy.ts) name volumes, snapshots and
 * instances by ARNs of the stack's own partition (`arn:<partition>:ec2:…`, IAM's ARN format): in
 * the China Regions `aws-cn`, and, when synthesis does not know the Region, the partition
 * CloudFormation deploys into (`AWS::Partition`). A statement naming another partition's ARNs
 * would match nothing there, and the executor could change no volume.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionsOf, removeSynthesized, resourceId, resourcesOf, roleStatements, synthesize, TEST_ENV, type Synthesized } from './synth.js';

let china: Synthesized;
let unknownRegion: Synthesized;
beforeAll(() => {
  china = synthesize({ env: { account: TEST_ENV.account, region: 'cn-north-1' } }, { bundle: false });
  unknownRegion = synthesize({ env: {} }, { bundle: false });
}, 120_000);
afterAll(removeSynthesized);

/** The resources of the executor's EC2 statements that are not `*` (the Describe calls'). */
function ec2Resources(json: Synthesized['json']): unknown[] {
  const role = json.Resources[resourceId(json, 'AWS::Lambda::Function', 'FunctionsExecutor')]!.Properties!.Role as { 'Fn::GetAtt': [string, string] };
  return roleStatements(json, role['Fn::GetAtt'][0])
    .filter((statement) => actionsOf(statement).some((action) => action.startsWith('ec2:')))
    .flatMap(resourcesOf)
    .filter((resource) => resource !== '*');
}

describe('EC2 statements of the executor', () => {
  it('in a China Region, name aws-cn ARNs of that Region', () => {
    expect([...new Set(ec2Resources(china.json))].sort()).toEqual(
      [
        `arn:aws-cn:ec2:cn-north-1:${TEST_ENV.account}:volume/*`,
        'arn:aws-cn:ec2:cn-north-1::snapshot/*',
        `arn:aws-cn:ec2:cn-north-1:${TEST_ENV.account}:instance/*`,
      ].sort(),
    );
  });

  it('with the Region unknown at synthesis, name the partition the stack is deployed into', () => {
    const resources = ec2Resources(unknownRegion.json);
    expect(resources.length).toBeGreaterThan(0);
    for (const resource of resources) expect(JSON.stringify(resource)).toContain('"arn:",{"Ref":"AWS::Partition"},":ec2:",{"Ref":"AWS::Region"},":');
  });
});
