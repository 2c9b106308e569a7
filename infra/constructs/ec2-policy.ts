import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';

/** EC2 reads used by the executor and the reconciler. */
export const EC2_DESCRIBE_ACTIONS = [
  'ec2:DescribeVolumes',
  'ec2:DescribeVolumesModifications',
  'ec2:DescribeInstances',
  'ec2:DescribeAvailabilityZones',
] as const;

/**
 * EC2 Describe* actions support no resource-level permissions: IAM only accepts `*` for them.
 * They read, never change, so `*` exposes metadata only.
 */
export function ec2DescribeStatement(): iam.PolicyStatement {
  return new iam.PolicyStatement({ sid: 'Ec2DescribeNeedsWildcard', actions: [...EC2_DESCRIBE_ACTIONS], resources: ['*'] });
}

/** ARN of every EC2 resource of a type in this stack's region; snapshots pass account '' (they may be shared). */
export function ec2ResourcesArn(scope: Stack, resource: string, account = scope.account): string {
  return scope.formatArn({ service: 'ec2', resource, resourceName: '*', account });
}

/**
 * The EC2 mutations the executor may make, scoped to the volumes this deployment owns:
 * it can create a volume only when the request tags it with the ownership tag, tag only while creating,
 * and attach/detach/modify/delete only volumes already carrying that tag.
 */
export function ec2MutationStatements(scope: Stack, ownerTagValue: string): iam.PolicyStatement[] {
  const arn = (resource: string, account?: string) => ec2ResourcesArn(scope, resource, account);
  const volumes = arn('volume');
  const ownedVolume = { StringEquals: { [`ec2:ResourceTag/${OWNERSHIP_TAGS.owner}`]: ownerTagValue } };
  return [
    new iam.PolicyStatement({
      sid: 'CreateOnlyOwnerTaggedVolumes',
      actions: ['ec2:CreateVolume'],
      resources: [volumes],
      conditions: { StringEquals: { [`aws:RequestTag/${OWNERSHIP_TAGS.owner}`]: ownerTagValue } },
    }),
    // CreateVolume from a snapshot is also authorized against the snapshot; snapshots may be
    // another account's (shared/public), and the new volume is still bound by the tag condition above.
    new iam.PolicyStatement({
      sid: 'CreateVolumeFromSnapshot',
      actions: ['ec2:CreateVolume'],
      resources: [arn('snapshot', '')],
    }),
    new iam.PolicyStatement({
      sid: 'TagOnlyWhileCreatingVolumes',
      actions: ['ec2:CreateTags'],
      resources: [volumes],
      conditions: { StringEquals: { 'ec2:CreateAction': 'CreateVolume' } },
    }),
    new iam.PolicyStatement({
      sid: 'ChangeOnlyOwnedVolumes',
      actions: ['ec2:AttachVolume', 'ec2:DetachVolume', 'ec2:DeleteVolume', 'ec2:ModifyVolume'],
      resources: [volumes],
      conditions: ownedVolume,
    }),
    // Attach/Detach are authorized against the instance too; the instance is the user's, not ours to tag.
    new iam.PolicyStatement({
      sid: 'AttachToAnyInstance',
      actions: ['ec2:AttachVolume', 'ec2:DetachVolume'],
      resources: [arn('instance')],
    }),
  ];
}

/**
 * KMS use on behalf of EC2 for volumes encrypted with the configured key: only through EC2
 * (kms:ViaService), and grants only for AWS resources.
 */
export function ebsKmsStatements(scope: Stack, kmsKeyArn: string): iam.PolicyStatement[] {
  const viaEc2 = { 'kms:ViaService': `ec2.${scope.region}.amazonaws.com` };
  return [
    new iam.PolicyStatement({
      sid: 'UseVolumeKeyThroughEc2',
      actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:GenerateDataKeyWithoutPlaintext', 'kms:ReEncryptFrom', 'kms:ReEncryptTo'],
      resources: [kmsKeyArn],
      conditions: { StringEquals: viaEc2 },
    }),
    new iam.PolicyStatement({
      sid: 'GrantVolumeKeyToEc2',
      actions: ['kms:CreateGrant'],
      resources: [kmsKeyArn],
      conditions: { StringEquals: viaEc2, Bool: { 'kms:GrantIsForAWSResource': 'true' } },
    }),
  ];
}
