/** The cdk-nag finding id an acknowledgement of a wildcard resource is given, for each form the resource may take. */
import { App, Fn, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { describe, expect, it } from 'vitest';
import { acknowledgeWildcardResource } from '../../infra/constructs/acknowledge.js';
import { acknowledgements, unneededAcknowledgements } from './synth.js';

describe('acknowledgeWildcardResource', () => {
  it('names a resource built on an attribute (Fn::GetAtt) as cdk-nag prints it: the finding of a policy on it is acknowledged', () => {
    const app = new App();
    const stack = new Stack(app, 'S');
    const queue = new sqs.Queue(stack, 'Work');
    const role = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    role.addToPolicy(new iam.PolicyStatement({ actions: ['sqs:ReceiveMessage'], resources: [`${queue.queueArn}/*`] }));
    acknowledgeWildcardResource(role, `${queue.queueArn}/*`, 'every message of the queue');
    const logicalId = stack.getLogicalId(queue.node.defaultChild as sqs.CfnQueue);
    expect(acknowledgements(app)).toEqual([{ id: `AwsSolutions-IAM5[Resource::<${logicalId}.Arn>/*]`, reason: 'every message of the queue' }]);
    expect(unneededAcknowledgements(app)).toEqual([]);
  });

  it('names a resource built on an imported value or a substitution as cdk-nag prints it: the findings of policies on them are acknowledged', () => {
    const app = new App();
    const stack = new Stack(app, 'S');
    const role = new iam.Role(stack, 'Reader', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
    const imported = `${Fn.importValue('SharedBucketArn')}/*`;
    const substituted = Fn.sub('arn:${AWS::Partition}:s3:::shared/*');
    role.addToPolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: [imported, substituted] }));
    acknowledgeWildcardResource(role, imported, 'every object of the shared bucket');
    acknowledgeWildcardResource(role, substituted, 'every object of the shared bucket');
    expect(acknowledgements(app).map((acknowledgement) => acknowledgement.id)).toEqual([
      'AwsSolutions-IAM5[Resource::SharedBucketArn/*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::shared/*]',
    ]);
    expect(unneededAcknowledgements(app)).toEqual([]);
  });
});
