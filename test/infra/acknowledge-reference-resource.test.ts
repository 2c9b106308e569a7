/**
 * A wildcard resource holding a reference (Ref), such as the stack's partition when synthesis
 * does not know the Region: cdk-nag prints a reference as `<name>`, and so must the
 * acknowledgement's finding id.
 */
import { App, Aws, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { acknowledgeWildcardResource } from '../../infra/constructs/acknowledge.js';
import { acknowledgements, unneededAcknowledgements } from './synth.js';

describe('acknowledgeWildcardResource', () => {
  it('names a resource holding a reference as cdk-nag prints it: the finding of a policy on it is acknowledged', () => {
    const app = new App();
    const stack = new Stack(app, 'S');
    const role = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    const resource = `arn:${Aws.PARTITION}:sqs:*:*:work-*`;
    role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage'], resources: [resource] }));
    acknowledgeWildcardResource(role, resource, 'every work queue');
    expect(acknowledgements(app)).toEqual([{ id: 'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:*:*:work-*]', reason: 'every work queue' }]);
    expect(unneededAcknowledgements(app)).toEqual([]);
  });
});
