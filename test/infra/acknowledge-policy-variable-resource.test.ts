/**
 * A wildcard resource holding an IAM policy variable (`${aws:username}`): cdk-nag prints `${` as
 * `<` and `}` as `>` in its findings, and so must the acknowledgement's finding id.
 */
import { App, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { acknowledgeWildcardResource } from '../../infra/constructs/acknowledge.js';
import { acknowledgements, unneededAcknowledgements } from './synth.js';

describe('acknowledgeWildcardResource', () => {
  it('names a resource holding a policy variable as cdk-nag prints it: the finding of a policy on it is acknowledged', () => {
    const app = new App();
    const stack = new Stack(app, 'S');
    const role = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    const resource = 'arn:aws:s3:::shared/${aws:username}/*';
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [resource] }));
    acknowledgeWildcardResource(role, resource, 'every object under the caller\'s own prefix');
    expect(acknowledgements(app)).toEqual([{ id: 'AwsSolutions-IAM5[Resource::arn:aws:s3:::shared/<aws:username>/*]', reason: 'every object under the caller\'s own prefix' }]);
    expect(unneededAcknowledgements(app)).toEqual([]);
  });
});
