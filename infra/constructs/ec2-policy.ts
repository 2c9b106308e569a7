/**
 * Least-privilege EC2 and KMS statements. The executor may create volumes only when the request
 * carries this deployment's ownership tag, and may attach, detach, modify, delete or retag only
 * volumes that carry the tag: other volumes in the account are out of reach. Tags it sets on an
 * existing volume never include the ownership keys, so it cannot change or remove ownership.
 * API callers choose the snapshot and the instance, so those sides are limited by the deployment's
 * options: snapshots of the restorable owners only (default: this account), and, when an
 * attachable-instance tag is set, only instances carrying it.
 */
import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { OWNERSHIP_TAGS } from '../../lib/settings.js';
import { ANY_SNAPSHOT_OWNER, type ResolvedOptions } from '../config.js';

/** The options the EC2 statements depend on. */
export type Ec2PolicyOptions = Pick<ResolvedOptions, 'ownerTagValue' | 'restorableSnapshotOwners' | 'attachableInstanceTag'>;

/**
 * The Describe calls each function makes: the executor checks volumes, modifications and
 * instances; the reconciler only reads volumes (records against EC2, and the search for leaked
 * volumes by their tag). EC2 Describe actions do not support resource-level permissions or tag
 * conditions (the Service Authorization Reference lists no resource type for them), so `*` is the
 * only resource they accept; they read metadata and change nothing.
 */
export const EC2_DESCRIBE_ACTIONS = {
  executor: ['ec2:DescribeVolumes', 'ec2:DescribeVolumesModifications', 'ec2:DescribeInstances'],
  reconciler: ['ec2:DescribeVolumes'],
} as const;

/** Statements for reading volume (and, for the executor, modification and instance) state. */
export function ec2DescribeStatements(fn: keyof typeof EC2_DESCRIBE_ACTIONS): iam.PolicyStatement[] {
  return [new iam.PolicyStatement({ sid: fn === 'executor' ? 'DescribeVolumesAndInstances' : 'DescribeVolumes', actions: [...EC2_DESCRIBE_ACTIONS[fn]], resources: ['*'] })];
}

/**
 * The `ec2:Owner` values of the snapshots volumes may be restored from: the deployer's, or this
 * stack's account (a token until deployment); undefined for any owner.
 */
function snapshotOwners(stack: Stack, options: Ec2PolicyOptions): string[] | undefined {
  const owners = options.restorableSnapshotOwners ?? [stack.account];
  return owners.includes(ANY_SNAPSHOT_OWNER) ? undefined : owners;
}

/**
 * `text` as a condition value IAM matches as written: IAM reads `${...}` in a value as a policy
 * variable, and `${$}` is its `$` (EC2 tag values may hold both; `a${b}` is written `a${$}{b}`).
 */
export function policyLiteral(text: string): string {
  return text.replaceAll('$', '${$}');
}

/** Statements for creating and changing volumes owned by `ownerTagValue` (the executor). */
export function ec2MutationStatements(stack: Stack, options: Ec2PolicyOptions): iam.PolicyStatement[] {
  const { ownerTagValue, attachableInstanceTag } = options;
  const arn = (resource: string, account = stack.account) =>
    `arn:${stack.partition}:ec2:${stack.region}:${account}:${resource}`;
  const volumes = arn('volume/*');
  const owned = { StringEquals: { [`ec2:ResourceTag/${OWNERSHIP_TAGS.owner}`]: ownerTagValue } };
  const owners = snapshotOwners(stack, options);
  return [
    new iam.PolicyStatement({
      sid: 'CreateOwnedVolumes',
      actions: ['ec2:CreateVolume'],
      resources: [volumes],
      conditions: { StringEquals: { [`aws:RequestTag/${OWNERSHIP_TAGS.owner}`]: ownerTagValue } },
    }),
    // Restoring from a snapshot authorizes the snapshot too; snapshots are only read, and the
    // volume statement above still requires the ownership tag. Snapshot ARNs have no account, so
    // which snapshots (the API caller names any) is limited by their owner, ec2:Owner.
    new iam.PolicyStatement({
      sid: 'CreateVolumesFromSnapshots',
      actions: ['ec2:CreateVolume'],
      resources: [arn('snapshot/*', '')],
      ...(owners ? { conditions: { StringEquals: { 'ec2:Owner': owners } } } : {}),
    }),
    new iam.PolicyStatement({
      sid: 'TagOnlyWhileCreatingVolumes',
      actions: ['ec2:CreateTags'],
      resources: [volumes],
      conditions: { StringEquals: { 'ec2:CreateAction': 'CreateVolume' } },
    }),
    // Retagging after creation: only owned volumes, only with the tag keys named in the request
    // (DeleteTags without any removes every tag), and never an ownership key.
    new iam.PolicyStatement({
      sid: 'RetagOwnedVolumes',
      actions: ['ec2:CreateTags', 'ec2:DeleteTags'],
      resources: [volumes],
      conditions: {
        ...owned,
        'ForAllValues:StringNotEquals': { 'aws:TagKeys': Object.values(OWNERSHIP_TAGS) },
        Null: { 'aws:TagKeys': 'false' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'ChangeOwnedVolumes',
      actions: ['ec2:AttachVolume', 'ec2:DetachVolume', 'ec2:ModifyVolume', 'ec2:DeleteVolume'],
      resources: [volumes],
      conditions: owned,
    }),
    // Attach and Detach also authorize the instance; which instances get volumes is the API
    // caller's choice: those carrying the attachable-instance tag when one is set, otherwise any
    // instance in this account and region.
    new iam.PolicyStatement({
      sid: 'AttachToInstances',
      actions: ['ec2:AttachVolume', 'ec2:DetachVolume'],
      resources: [arn('instance/*')],
      ...(attachableInstanceTag
        ? { conditions: { StringEquals: { [`ec2:ResourceTag/${attachableInstanceTag.key}`]: policyLiteral(attachableInstanceTag.value) } } }
        : {}),
    }),
  ];
}

/**
 * Statements for EBS encryption with a customer-managed key (the Amazon EBS User Guide's
 * "Permissions for users"): EC2 uses the key on the caller's behalf, so every use, grants
 * included, must come through EC2 in this Region (kms:ViaService), and grants are only for AWS
 * resources (kms:GrantIsForAWSResource). EBS never needs kms:Encrypt: it encrypts with data keys.
 */
export function kmsStatements(stack: Stack, kmsKeyArn: string): iam.PolicyStatement[] {
  // EC2's endpoint in the stack's partition (amazonaws.com, amazonaws.com.cn, …).
  const throughEc2 = { 'kms:ViaService': `ec2.${stack.region}.${stack.urlSuffix}` };
  return [
    new iam.PolicyStatement({
      sid: 'UseVolumeKeyThroughEc2',
      actions: ['kms:Decrypt', 'kms:DescribeKey', 'kms:GenerateDataKeyWithoutPlaintext', 'kms:ReEncryptFrom', 'kms:ReEncryptTo'],
      resources: [kmsKeyArn],
      conditions: { StringEquals: throughEc2 },
    }),
    new iam.PolicyStatement({
      sid: 'GrantVolumeKeyToEbs',
      actions: ['kms:CreateGrant'],
      resources: [kmsKeyArn],
      conditions: { StringEquals: throughEc2, Bool: { 'kms:GrantIsForAWSResource': 'true' } },
    }),
  ];
}

/**
 * Why each EC2 statement with a wildcard resource is still least privilege, by statement id: the
 * conditions `ec2MutationStatements` puts on it with these options.
 */
export function wildcardReasons(options: Ec2PolicyOptions): Record<string, string> {
  const owners = options.restorableSnapshotOwners ?? ['this account'];
  const tag = options.attachableInstanceTag;
  return {
    CreateOwnedVolumes: 'new volumes have no id yet; the request must carry this deployment\'s ownership tag (aws:RequestTag).',
    CreateVolumesFromSnapshots: owners.includes(ANY_SNAPSHOT_OWNER)
      ? 'snapshots are only read as a source, any the account can use (restorableSnapshotOwners=*); the created volume still needs the ownership tag.'
      : `snapshots are only read as a source, only those owned by ${owners.join(', ')} (ec2:Owner); the created volume still needs the ownership tag.`,
    TagOnlyWhileCreatingVolumes: 'any tags, ownership included, only as part of CreateVolume (ec2:CreateAction).',
    RetagOwnedVolumes: 'only volumes carrying this deployment\'s ownership tag (ec2:ResourceTag), never with an ownership tag key (aws:TagKeys).',
    ChangeOwnedVolumes: 'only volumes carrying this deployment\'s ownership tag (ec2:ResourceTag).',
    AttachToInstances: tag
      ? `the instance side of AttachVolume/DetachVolume, only instances tagged ${tag.key}=${tag.value} (ec2:ResourceTag); the volume side requires the ownership tag.`
      : 'the instance side of AttachVolume/DetachVolume, any instance in this account and Region (no attachableInstanceTag); the volume side requires the ownership tag.',
  };
}
