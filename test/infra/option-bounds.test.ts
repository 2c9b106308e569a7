/**
 * The limits of the deployment options as the README's options table gives them, at both ends:
 * the last value accepted and the first refused, naming the option.
 */
import { describe, expect, it } from 'vitest';
import { resolveOptions, type DeploymentOptions } from '../../infra/config.js';

const accepts = (options: DeploymentOptions) => expect(() => resolveOptions(options, 'Prod')).not.toThrow();
const refuses = (options: DeploymentOptions, option: string) => expect(() => resolveOptions(options, 'Prod'), JSON.stringify(options)).toThrow(new RegExp(`^${option} must be`));

describe('option limits', () => {
  it('executorMaxConcurrency: 2 to 1000', () => {
    accepts({ executorMaxConcurrency: 2 });
    accepts({ executorMaxConcurrency: 1000 });
    refuses({ executorMaxConcurrency: 1001 }, 'executorMaxConcurrency');
  });

  it('ec2RefillPerSecond and ec2RateBudget: positive, finite numbers', () => {
    accepts({ ec2RefillPerSecond: 0.1, ec2RateBudget: 0.1 });
    for (const value of [0, Number.NaN, Number.POSITIVE_INFINITY]) {
      refuses({ ec2RefillPerSecond: value }, 'ec2RefillPerSecond');
      refuses({ ec2RateBudget: value }, 'ec2RateBudget');
    }
  });

  it('reconcilerScanSegments: 1 to 1 000 000', () => {
    accepts({ reconcilerScanSegments: 1 });
    accepts({ reconcilerScanSegments: 1_000_000 });
    refuses({ reconcilerScanSegments: 1_000_001 }, 'reconcilerScanSegments');
  });

  it('ownerTagValue: 1 to 256 characters', () => {
    accepts({ ownerTagValue: 'a' });
    accepts({ ownerTagValue: 'a'.repeat(256) });
    refuses({ ownerTagValue: 'a'.repeat(257) }, 'ownerTagValue');
  });

  it('logRetentionDays: CloudWatch Logs retention values, from 1 to 3653', () => {
    for (const days of [1, 3, 30, 3653]) accepts({ logRetentionDays: days });
    for (const days of [0, 2, 3654]) refuses({ logRetentionDays: days }, 'logRetentionDays');
  });

  it('restorableSnapshotOwners: 12-digit account ids, no shorter or longer', () => {
    accepts({ restorableSnapshotOwners: ['111122223333'] });
    refuses({ restorableSnapshotOwners: ['11112222333'] }, 'restorableSnapshotOwners');
    refuses({ restorableSnapshotOwners: ['1111222233334'] }, 'restorableSnapshotOwners');
  });

  it('kmsKeyArn: a key ARN in any AWS partition (the KMS permissions name EC2 by the stack\'s partition\'s endpoint)', () => {
    accepts({ kmsKeyArn: 'arn:aws-cn:kms:cn-north-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab' });
    accepts({ kmsKeyArn: 'arn:aws-us-gov:kms:us-gov-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab' });
    refuses({ kmsKeyArn: 'arn:other:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab' }, 'kmsKeyArn');
  });
});
