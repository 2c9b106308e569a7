/**
 * Deployment options of the stack: typed props for code, and the same options read from CDK
 * context (`cdk deploy -c alarmEmail=ops@example.com`) for the command line. Bad values fail
 * synthesis with a message naming the option, before anything is deployed.
 */
import { characterCount, TAG_KEY_MAX_CHARS, TAG_VALUE_MAX_CHARS } from '../lib/domain/validation.js';
import { MAX_SCAN_SEGMENTS } from '../lib/engine/ports.js';
import { EXECUTOR } from '../lib/settings.js';

export type ApiAuthorization = 'iam' | 'none';
export type TableRemovalPolicy = 'retain' | 'destroy';


/** A deployment option that cannot be used: the app prints its message alone, as a usage error, not a stack trace. */
export class OptionError extends Error {
  override name = 'OptionError';
}

/** Options a deployer may set; everything else comes from lib/settings.ts. */
export interface DeploymentOptions {
  /** Value of the ownership tag on every volume this deployment creates; IAM scopes EC2 mutations to it. Default: the stack name. */
  ownerTagValue?: string;
  /** Email address subscribed to the alarm topic. Default: no subscription. */
  alarmEmail?: string;
  /** `iam` (SigV4, default) or `none` (no authorization: anyone with the URL can call it; only for trials, or with a WAF web ACL limiting callers). */
  apiAuthorization?: ApiAuthorization;
  /** Concurrent executor invocations (event source maximum concurrency and reserved concurrency). Default: EXECUTOR.maxConcurrency. */
  executorMaxConcurrency?: number;
  /**
   * Tokens per second EC2 refills its CreateVolume, DeleteVolume and mutating-action buckets with
   * in this account and Region: the shared rate budget's pace. Default: 5, EC2's standard rate;
   * raise it only when AWS has raised these limits for the account.
   */
  ec2RefillPerSecond?: number;
  /**
   * Mutating EC2 calls per second per executor environment, for each of EC2's request buckets alike
   * (AttachVolume, DetachVolume, ModifyVolume and DeleteTags drawing on one together), while the
   * shared rate budget cannot be reached. Default: none; each environment then takes an equal share
   * (1/`executorMaxConcurrency`) of each of EC2's request buckets, their refill at
   * `ec2RefillPerSecond` (CreateTags at its own 10 a second) and their size.
   */
  ec2RateBudget?: number;
  /** Retention of function and API access logs, in days. Default: 30. */
  logRetentionDays?: number;
  /** What happens to the table when the stack is deleted. Default: retain; `destroy` only with `deletionProtection: false`. */
  tableRemovalPolicy?: TableRemovalPolicy;
  /** DynamoDB deletion protection. Default: true. */
  deletionProtection?: boolean;
  /** KMS key (in the stack's Region) the executor may use to encrypt volumes; only then does it get KMS permissions. */
  kmsKeyArn?: string;
  /**
   * Parallel scan segments the reconciler divides the record table into (engine config
   * `reconcilerScanSegments`). Default: the engine's, 8. Raise it when a segment holds more than
   * one pass can scan (the reconciler's log says so).
   */
  reconcilerScanSegments?: number;
  /**
   * Owners of the snapshots the executor may restore volumes from (the `ec2:Owner` condition on
   * the snapshot side of CreateVolume): 12-digit account ids, or `amazon`. Whoever may call the API
   * may restore any snapshot of these owners that the account can use. `['*']` alone allows any
   * snapshot the account can use (no condition). Default: the stack's own account only.
   */
  restorableSnapshotOwners?: string[];
  /**
   * `key=value`: volumes are attached to (and detached from) only instances carrying this tag (the
   * `ec2:ResourceTag` condition on the instance side of AttachVolume and DetachVolume). Default:
   * none; any instance in the stack's account and Region.
   */
  attachableInstanceTag?: string;
}

/** A tag an instance must carry for the executor to attach volumes to it. */
export interface InstanceTag {
  key: string;
  value: string;
}

/** Options with defaults applied and values checked. */
export interface ResolvedOptions {
  ownerTagValue: string;
  alarmEmail?: string;
  apiAuthorization: ApiAuthorization;
  executorMaxConcurrency: number;
  ec2RefillPerSecond: number;
  /** Only when the deployer gives one. */
  ec2RateBudget?: number;
  logRetentionDays: number;
  tableRemovalPolicy: TableRemovalPolicy;
  deletionProtection: boolean;
  kmsKeyArn?: string;
  /** Only when the deployer gives one. */
  reconcilerScanSegments?: number;
  /** Only when the deployer gives them: the stack's own account otherwise (known only as a token at synthesis). `['*']`: any owner. */
  restorableSnapshotOwners?: string[];
  /** Only when the deployer gives one: any instance otherwise. */
  attachableInstanceTag?: InstanceTag;
}

/** EC2's account-wide buckets for CreateVolume, DeleteVolume and mutating actions refill this many tokens per second by default. */
export const EC2_MUTATING_REFILL_PER_SECOND = 5;

/** Context keys read by `optionsFromContext`, the same names as the props. */
export const CONTEXT_KEYS = [
  'ownerTagValue',
  'alarmEmail',
  'apiAuthorization',
  'executorMaxConcurrency',
  'ec2RefillPerSecond',
  'ec2RateBudget',
  'logRetentionDays',
  'tableRemovalPolicy',
  'deletionProtection',
  'kmsKeyArn',
  'reconcilerScanSegments',
  'restorableSnapshotOwners',
  'attachableInstanceTag',
] as const satisfies readonly (keyof DeploymentOptions)[];

/** CloudWatch Logs accepts only these retention periods. */
const LOG_RETENTION_DAYS = [1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653];

/** Lambda allows up to 1000 concurrent executions per event source mapping; the minimum is 2. */
const MAX_CONCURRENCY_RANGE = { min: 2, max: 1000 } as const;

// Tag values: letters, digits, spaces and + - = . _ : / @, at most 256 characters.
const TAG_VALUE = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]{1,256}$/u;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const KMS_KEY_ARN = /^arn:aws[a-z-]*:kms:(?<region>[a-z0-9-]+):\d{12}:key\/[A-Za-z0-9-]+$/;
// Values of ec2:Owner for a snapshot: the owning account's id, or `amazon` for Amazon's own.
const SNAPSHOT_OWNER = /^(\d{12}|amazon)$/;
// A number as written on the command line: digits, an optional fraction and exponent.
const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;
/** `restorableSnapshotOwners` allowing any snapshot the account can use. */
export const ANY_SNAPSHOT_OWNER = '*';

/** The stack's name when the context gives none. */
export const DEFAULT_STACK_NAME = 'EbsProvisioner';
// CloudFormation's stack names: a letter, then letters, digits and hyphens, 128 characters at most.
const STACK_NAME = /^[A-Za-z][A-Za-z0-9-]{0,127}$/;

/**
 * The stack's name from CDK context (`-c stackName=…`), `EbsProvisioner` when not given. An empty
 * value stops synthesis rather than taking the default: a shell variable that expanded to nothing
 * would otherwise deploy over the default deployment.
 */
export function stackNameFromContext(get: (key: string) => unknown): string {
  const value = get('stackName');
  if (value === undefined) return DEFAULT_STACK_NAME;
  if (typeof value !== 'string' || !STACK_NAME.test(value)) {
    throw new OptionError(`stackName must be 1-128 letters, digits and hyphens, starting with a letter, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Refuses a context key that reads like an option of this app but is none (`-c alarmEmial=…`): it
 * would be ignored, and the deployment would go out without it. Keys of CDK and its feature flags
 * (`@aws-cdk/…`, `aws:cdk:…`) and cached lookups (`availability-zones:…`) hold `@`, `:` or `-`.
 */
export function checkContextKeys(keys: readonly string[]): void {
  const known = new Set<string>(['stackName', ...CONTEXT_KEYS]);
  const unknown = keys.filter((key) => /^[A-Za-z][A-Za-z0-9]*$/.test(key) && !known.has(key));
  if (unknown.length > 0) {
    throw new OptionError(`unknown context option ${unknown.map((key) => JSON.stringify(key)).join(', ')}: the options are ${[...known].join(', ')}`);
  }
}

/** Reads the options from CDK context values (strings on the command line, any JSON type in cdk.json). */
export function optionsFromContext(get: (key: string) => unknown): DeploymentOptions {
  const options: Record<string, unknown> = {};
  for (const key of CONTEXT_KEYS) {
    const value = get(key);
    if (value !== undefined && value !== '') options[key] = value;
  }
  const text = (key: keyof DeploymentOptions) => {
    const value = options[key];
    if (value !== undefined && typeof value !== 'string') throw new OptionError(`${key} must be a string, got ${JSON.stringify(value)}`);
    return value;
  };
  const number = (key: keyof DeploymentOptions) => {
    const value = options[key];
    if (value === undefined || typeof value === 'number') return value;
    // Decimal only: Number() would also read `0x10`, `0b11110` or `0o20` as 16, 30 or 16.
    if (typeof value === 'string' && DECIMAL_NUMBER.test(value.trim()) && Number.isFinite(Number(value))) return Number(value);
    throw new OptionError(`${key} must be a decimal number, got ${JSON.stringify(value)}`);
  };
  const boolean = (key: keyof DeploymentOptions) => {
    const value = options[key];
    if (value === undefined || typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new OptionError(`${key} must be true or false, got ${JSON.stringify(value)}`);
  };
  // A comma-separated list on the command line, a JSON array of strings in cdk.json.
  const list = (key: keyof DeploymentOptions) => {
    const value = options[key];
    if (value === undefined) return value;
    if (typeof value === 'string') return value.split(',').map((item) => item.trim());
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value as string[];
    throw new OptionError(`${key} must be a comma-separated string or an array of strings, got ${JSON.stringify(value)}`);
  };
  return {
    ownerTagValue: text('ownerTagValue'),
    alarmEmail: text('alarmEmail'),
    apiAuthorization: text('apiAuthorization') as ApiAuthorization | undefined,
    executorMaxConcurrency: number('executorMaxConcurrency'),
    ec2RefillPerSecond: number('ec2RefillPerSecond'),
    ec2RateBudget: number('ec2RateBudget'),
    logRetentionDays: number('logRetentionDays'),
    tableRemovalPolicy: text('tableRemovalPolicy') as TableRemovalPolicy | undefined,
    deletionProtection: boolean('deletionProtection'),
    kmsKeyArn: text('kmsKeyArn'),
    reconcilerScanSegments: number('reconcilerScanSegments'),
    restorableSnapshotOwners: list('restorableSnapshotOwners'),
    attachableInstanceTag: text('attachableInstanceTag'),
  };
}

function resolveSnapshotOwners(owners: string[] | undefined): string[] | undefined {
  if (owners === undefined) return undefined;
  if (!Array.isArray(owners)) throw new OptionError(`restorableSnapshotOwners must be a list of owners, got ${JSON.stringify(owners)}`);
  if (owners.length === 1 && owners[0] === ANY_SNAPSHOT_OWNER) return [ANY_SNAPSHOT_OWNER];
  if (owners.length === 0 || owners.some((owner) => typeof owner !== 'string' || !SNAPSHOT_OWNER.test(owner))) {
    throw new OptionError(`restorableSnapshotOwners must be 12-digit account ids or amazon, or '*' alone for any owner, got ${JSON.stringify(owners)}`);
  }
  return [...new Set(owners)];
}

function resolveInstanceTag(tag: string | undefined): InstanceTag | undefined {
  if (tag === undefined) return undefined;
  // The key ends at the first `=`; the value may hold more of them.
  const separator = typeof tag === 'string' ? tag.indexOf('=') : -1;
  const key = separator < 0 ? '' : tag.slice(0, separator);
  const value = separator < 0 ? '' : tag.slice(separator + 1);
  // Characters as EC2 counts them: Unicode code points.
  const keyChars = characterCount(key);
  // A key of spaces only would make the instance condition name a tag nobody means to put on an instance.
  const blankKey = key.trim() === '';
  if (keyChars < 1 || blankKey || keyChars > TAG_KEY_MAX_CHARS || characterCount(value) > TAG_VALUE_MAX_CHARS || key.toLowerCase().startsWith('aws:')) {
    throw new OptionError(
      `attachableInstanceTag must be key=value, a tag key of 1-${TAG_KEY_MAX_CHARS} characters, not only spaces and not starting with aws:, and a value of 0-${TAG_VALUE_MAX_CHARS}, got ${JSON.stringify(tag)}`,
    );
  }
  return { key, value };
}

/**
 * Applies defaults and rejects values AWS would refuse at deploy time, naming the option.
 * `region` is the stack's Region when known at synthesis (not for an environment-agnostic stack).
 */
export function resolveOptions(options: DeploymentOptions, stackName: string, region?: string): ResolvedOptions {
  const ownerTagValue = options.ownerTagValue ?? stackName;
  // Spaces alone tell no deployment from another: the IAM conditions on the owner tag would mean nothing.
  if (!TAG_VALUE.test(ownerTagValue) || ownerTagValue.trim() === '') {
    throw new OptionError(`ownerTagValue must be 1-256 letters, digits, spaces or + - = . _ : / @, not only spaces, got ${JSON.stringify(ownerTagValue)}`);
  }
  if (options.alarmEmail !== undefined && !EMAIL.test(options.alarmEmail)) {
    throw new OptionError(`alarmEmail must be an email address, got ${JSON.stringify(options.alarmEmail)}`);
  }
  const apiAuthorization = options.apiAuthorization ?? 'iam';
  if (apiAuthorization !== 'iam' && apiAuthorization !== 'none') {
    throw new OptionError(`apiAuthorization must be 'iam' or 'none', got ${JSON.stringify(apiAuthorization)}`);
  }
  const executorMaxConcurrency = options.executorMaxConcurrency ?? EXECUTOR.maxConcurrency;
  if (!Number.isInteger(executorMaxConcurrency) || executorMaxConcurrency < MAX_CONCURRENCY_RANGE.min || executorMaxConcurrency > MAX_CONCURRENCY_RANGE.max) {
    throw new OptionError(`executorMaxConcurrency must be an integer from ${MAX_CONCURRENCY_RANGE.min} to ${MAX_CONCURRENCY_RANGE.max}, got ${executorMaxConcurrency}`);
  }
  const ec2RefillPerSecond = options.ec2RefillPerSecond ?? EC2_MUTATING_REFILL_PER_SECOND;
  if (!Number.isFinite(ec2RefillPerSecond) || ec2RefillPerSecond <= 0) {
    throw new OptionError(`ec2RefillPerSecond must be a positive number of tokens per second, got ${ec2RefillPerSecond}`);
  }
  const ec2RateBudget = options.ec2RateBudget;
  if (ec2RateBudget !== undefined && (!Number.isFinite(ec2RateBudget) || ec2RateBudget <= 0)) {
    throw new OptionError(`ec2RateBudget must be a positive number of calls per second, got ${ec2RateBudget}`);
  }
  const logRetentionDays = options.logRetentionDays ?? 30;
  if (!LOG_RETENTION_DAYS.includes(logRetentionDays)) {
    throw new OptionError(`logRetentionDays must be one of ${LOG_RETENTION_DAYS.join(', ')}, got ${logRetentionDays}`);
  }
  const tableRemovalPolicy = options.tableRemovalPolicy ?? 'retain';
  if (tableRemovalPolicy !== 'retain' && tableRemovalPolicy !== 'destroy') {
    throw new OptionError(`tableRemovalPolicy must be 'retain' or 'destroy', got ${JSON.stringify(tableRemovalPolicy)}`);
  }
  const deletionProtection = options.deletionProtection ?? true;
  // CloudFormation cannot delete a protected table: `cdk destroy` would fail on it.
  if (tableRemovalPolicy === 'destroy' && deletionProtection) {
    throw new OptionError('tableRemovalPolicy=destroy needs deletionProtection=false: a table with deletion protection cannot be deleted with the stack');
  }
  if (options.kmsKeyArn !== undefined) {
    const keyRegion = KMS_KEY_ARN.exec(options.kmsKeyArn)?.groups?.region;
    if (keyRegion === undefined) {
      throw new OptionError(`kmsKeyArn must be a KMS key ARN (arn:aws:kms:<region>:<account>:key/<id>), got ${JSON.stringify(options.kmsKeyArn)}`);
    }
    // EBS encrypts a volume only with a key in the volume's own Region.
    if (region !== undefined && keyRegion !== region) {
      throw new OptionError(`kmsKeyArn must be a key in the stack's Region ${region}, got one in ${keyRegion}: ${options.kmsKeyArn}`);
    }
  }
  const reconcilerScanSegments = options.reconcilerScanSegments;
  if (reconcilerScanSegments !== undefined && (!Number.isInteger(reconcilerScanSegments) || reconcilerScanSegments < 1 || reconcilerScanSegments > MAX_SCAN_SEGMENTS)) {
    throw new OptionError(`reconcilerScanSegments must be an integer from 1 to ${MAX_SCAN_SEGMENTS}, got ${reconcilerScanSegments}`);
  }
  const restorableSnapshotOwners = resolveSnapshotOwners(options.restorableSnapshotOwners);
  const attachableInstanceTag = resolveInstanceTag(options.attachableInstanceTag);
  return {
    ownerTagValue,
    alarmEmail: options.alarmEmail,
    apiAuthorization,
    executorMaxConcurrency,
    ec2RefillPerSecond,
    ec2RateBudget,
    logRetentionDays,
    tableRemovalPolicy,
    deletionProtection,
    kmsKeyArn: options.kmsKeyArn,
    reconcilerScanSegments,
    restorableSnapshotOwners,
    attachableInstanceTag,
  };
}
