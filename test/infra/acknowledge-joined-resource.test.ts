/**
 * A wildcard resource joined with a delimiter (Fn::Join other than ''): cdk-nag prints its parts
 * joined with that delimiter, and so must the acknowledgement's finding id.
 */
import { App, Fn, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { acknowledgeWildcardResource } from '../../infra/constructs/acknowledge.js';
import { acknowledgements, unneededAcknowledgements } from './synth.js';

describe('acknowledgeWildcardResource', () => {
  it('names a resource joined with a delimiter as cdk-nag prints it: the finding of a policy on it is acknowledged', () => {
    const app = new App();
    const stack = new Stack(app, 'S');
    const queue = new sqs.Queue(stack, 'Work');
    const role = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    const resource = Fn.join(':', [queue.queueArn, '*']);
    role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage'], resources: [resource] }));
    acknowledgeWildcardResource(role, resource, 'every message of the queue');
    const logicalId = stack.getLogicalId(queue.node.defaultChild as sqs.CfnQueue);
    expect(acknowledgements(app)).toEqual([{ id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>:*]`, reason: 'every message of the queue' }]);
    expect(unneededAcknowledgements(app)).toEqual([]);
  });
});
