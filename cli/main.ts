/**
 * `ebs-provisioner`: the command line for the HTTP API. Talks to the local runtime by default and
 * to a deployed API (execute-api URL or `--sigv4`) with SigV4-signed requests.
 *
 * Exit codes (also in --help): 0 done, 1 the request failed (API problem or unreachable) or `wait`
 * found no such record, 2 usage error, 3 `wait` timed out, 4 `wait` saw the record (or an attachment's volume) fail, 5 `wait`
 * found the volume's change waiting for EC2's limit on modifications until after its timeout.
 */
import { readFileSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Help, InvalidArgumentError, Option } from 'commander';
import { MAX_TIMER_SECONDS, wholeNumberOption } from '../lib/command-line.js';
import { problemType } from '../lib/api/problem.js';
import type { CreateVolumeRequest, PatchVolumeRequest, VolumeDetails, VolumeListItem } from '../lib/api/schemas.js';
import { VOLUME_STATES, VOLUME_TYPES, type VolumeSpec } from '../lib/domain/records.js';
import { instanceIdSchema } from '../lib/domain/validation.js';
import type { Clock } from '../lib/engine/ports.js';
import { SystemClock } from '../lib/memory/clock.js';
import { ApiClient, ApiError, LOOPBACK_HOST } from './client.js';
import { attachmentLine, attachmentsTable, formatError, invalidRecordDeleteHint, volumeDetails, volumesTable, type FieldOptions, type OutputFormat } from './format.js';
import { createRequestSigner, isExecuteApiUrl, regionFromUrl, type AwsCredentialsProvider } from './sigv4.js';
import { waitableStates, waitFor, type Progress, type WaitOutcome } from './wait.js';

export const DEFAULT_ENDPOINT = 'http://127.0.0.1:3000';
/** The package's version, as `--version` prints it. */
export const CLI_VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
export const ENDPOINT_ENV = 'EBS_PROVISIONER_ENDPOINT';
export const EXIT = { ok: 0, failed: 1, usage: 2, timeout: 3, errorState: 4, cooldown: 5 } as const;
/** A record `wait` finds missing fails like any request answered 404. */
const WAIT_EXIT: Record<WaitOutcome['result'], number> = {
  reached: EXIT.ok,
  timeout: EXIT.timeout,
  error: EXIT.errorState,
  'not-found': EXIT.failed,
  cooldown: EXIT.cooldown,
};
const EXIT_CODES_HELP = `
Exit codes:
  0  done
  1  the request failed (the API's problem is printed), the API is unreachable,
     or wait found no such record (and was not waiting for its removal)
  2  usage error
  3  wait timed out
  4  wait saw the record fail (error state, or a change the system refused), or
     the volume an attachment waits to attach fail
  5  wait cannot be met before its timeout: the volume's change waits for EC2's
     limit on modifications (4 per volume in any 24 hours) until later`;

/** Everything the CLI touches outside itself, so tests can run it in-process. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  env: Record<string, string | undefined>;
  /** Whether stderr is a terminal (spinner) or not (plain progress lines). */
  isTTY: boolean;
  clock: Clock;
  fetch?: typeof fetch;
  /** Credentials for signing; the AWS SDK's default chain when absent. */
  credentials?: AwsCredentialsProvider;
}

interface GlobalOptions {
  endpoint: string;
  output: OutputFormat;
  sigv4?: boolean;
  region?: string;
}

class UsageError extends Error {}

/** A failure of the request with a hint on what to give the command instead (printed after it, in table output). */
class HintedError extends Error {
  constructor(
    readonly failure: unknown,
    readonly hint: string,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

/** What `volumes create` needs to place a volume, for the hint after the API's refusal of an unplaced one. */
const PLACEMENT_HINT = 'give --az <zone>, --near <instanceId> (the AZ of that instance) or --attach <instanceId>';

/** The options of `volumes modify`, by the field of the request each sets. */
const MODIFY_OPTIONS: FieldOptions = {
  sizeGiB: '--size',
  volumeType: '--type',
  iops: '--iops',
  throughput: '--throughput',
  availabilityZone: '--az',
  placementInstanceId: '--near',
  snapshotId: '--snapshot',
};

/** The options of `volumes create`, by the field of the request each sets. */
const CREATE_OPTIONS: FieldOptions = {
  ...Object.fromEntries(Object.entries(MODIFY_OPTIONS).map(([field, option]) => [`spec.${field}`, option])),
  'spec.encrypted': '--encrypted',
  'spec.kmsKeyId': '--kms-key',
  'spec.tags': '--tag',
  'spec.multiAttach': '--multi-attach',
  volumeId: '--id',
  'attachTo.instanceId': '--attach',
  'attachTo.device': '--device',
};

/** Read-and-write rounds `volumes tag` and `volumes grow` make while other clients keep changing the volume, before they give up. */
export const WRITE_ATTEMPTS = 3;

/**
 * A change made of the volume as it is: read, the change worked out from it (`change`; undefined
 * when it asks for nothing), written only if the volume is still as read (If-Match), and read again
 * after another client's change, up to WRITE_ATTEMPTS times. Answers the volume as it ends.
 */
async function patchAsRead(
  api: ApiClient,
  volumeId: string,
  what: string,
  change: (current: VolumeDetails) => PatchVolumeRequest | undefined,
): Promise<VolumeDetails> {
  for (let attempt = 1; ; attempt++) {
    const { body: current, etag } = await api.getVolume(volumeId);
    const patch = change(current);
    if (!patch) return current;
    try {
      return (await api.patchVolume(volumeId, patch, { ifMatch: etag })).body;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 412)) throw error;
      if (attempt >= WRITE_ATTEMPTS) {
        throw new Error(`volume ${volumeId} was changed by another client during each of ${WRITE_ATTEMPTS} attempts; its ${what} ${what === 'tags' ? 'were' : 'was'} not changed: run the command again`, { cause: error });
      }
    }
  }
}

/** Sizes, IOPS, throughput and counts; EBS's own limits per volume type are the API's to check. */
const POSITIVE = wholeNumberOption({ min: 1 });

function collectTag(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf('=');
  if (at <= 0) throw new InvalidArgumentError('must be key=value');
  return { ...previous, [value.slice(0, at)]: value.slice(at + 1) };
}

/**
 * A tag key to remove. An empty one names no tag a volume can have, and no request carries it for
 * the API to refuse: it would only print a note naming nothing (`had no tag ;`).
 */
function collectUntag(value: string, previous: string[] = []): string[] {
  if (value === '') throw new InvalidArgumentError('must name a tag key');
  return [...previous, value];
}

/** The states a listed volume can be in: a deleted volume's record is removed, so none is ever listed as `deleted`. */
const LISTED_VOLUME_STATES = VOLUME_STATES.filter((state) => state !== 'deleted');

/**
 * A volume state to list, checked before any request: an unknown one is a usage error (exit 2), as for
 * `wait`, and so is `deleted`, whose listing could only be empty.
 */
function volumeState(value: string): string {
  if (value === 'deleted') {
    throw new InvalidArgumentError("a deleted volume's record is removed, so no volume is listed as deleted; `wait <volumeId> --state deleted` waits for a delete");
  }
  if (!(LISTED_VOLUME_STATES as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${LISTED_VOLUME_STATES.join(', ')}`);
  return value;
}

/**
 * An id the request's path carries as one segment. Empty, `.` or `..` would name another path: `volumes
 * detach data-01 ..` would send DELETE /volumes/data-01, the volume's delete.
 */
function pathSegment(value: string): string {
  if (value === '' || value === '.' || value === '..') throw new InvalidArgumentError('must not be empty, "." or "..", which name another path');
  return value;
}

/**
 * The instance of `wait --attachment`, checked here: no request carries it for the API to check, and a
 * malformed one names no attachment, which counts as detached (`--state detached` would succeed at once).
 */
function waitedInstanceId(value: string): string {
  const checked = instanceIdSchema.safeParse(value);
  if (!checked.success) throw new InvalidArgumentError(checked.error.issues[0]?.message ?? 'must be an EC2 instance id');
  return value;
}

function commaList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

/** The narrowest column commander wraps a help description into. */
const HELP_MIN_WRAP_WIDTH = 20;

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let exitCode: number = EXIT.ok;
  /** The options of the command that runs, named beside the fields of the API's refusal of its request. */
  let fieldOptions: FieldOptions = {};
  const line = (text: string) => io.stdout(`${text}\n`);

  const program = new Command('ebs-provisioner')
    .description('Ask for EBS volumes and attachments through the provisioner API, and watch them happen.')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .configureHelp({
      // Commander leaves a description unwrapped when less than 40 columns are left beside its term
      // (`volumes retry-attachment <volumeId> <instanceId>` leaves 36 of 80): wrapped down to 20.
      minWidthToWrap: HELP_MIN_WRAP_WIDTH,
      // `[options]` only for a command with options besides --help, as the lists of commands show it
      // (`Usage: ebs-provisioner volumes retry-attachment <volumeId> <instanceId>` fits 80 columns).
      commandUsage(cmd: Command): string {
        const usage = Help.prototype.commandUsage.call(this, cmd);
        return cmd.options.length === 0 ? usage.replace(' [options]', '') : usage;
      },
    })
    .showHelpAfterError('(run with --help for usage)')
    .version(CLI_VERSION, '--version', "print this tool's version")
    .addOption(
      new Option('--endpoint <url>', `API base URL (env ${ENDPOINT_ENV})`).default(io.env[ENDPOINT_ENV] ?? DEFAULT_ENDPOINT),
    )
    .addOption(
      new Option('-o, --output <format>', 'output format; json prints results on stdout and an API error as its problem document (JSON) on stderr')
        .choices(['table', 'json'])
        .default('table'),
    )
    .option('--sigv4', 'sign requests with AWS SigV4 (automatic for execute-api URLs)')
    .option('--region <region>', 'AWS region for signing (default: from the URL, then AWS_REGION, then AWS_DEFAULT_REGION)')
    .addHelpText('after', EXIT_CODES_HELP);

  const globals = (command: Command) => command.optsWithGlobals<GlobalOptions>();
  const client = (command: Command) => createClient(globals(command), io);
  const print = (command: Command, value: unknown, asTable: () => string) =>
    line(globals(command).output === 'json' ? JSON.stringify(value, null, 2) : asTable());

  const volumes = program.command('volumes').description('create, inspect, change and delete volumes');

  volumes
    .command('create')
    .description('ask for a volume (optionally attached to an instance at once)')
    .requiredOption('--size <GiB>', 'size in GiB', POSITIVE)
    .option('--type <type>', `volume type (${VOLUME_TYPES.join(', ')})`, 'gp3')
    .option('--iops <n>', 'provisioned IOPS', POSITIVE)
    .option('--throughput <MiBps>', 'throughput in MiB/s (gp3)', POSITIVE)
    .option('--az <zone>', 'availability zone (required unless --near or --attach names the instance whose AZ it goes in)')
    .option('--near <instanceId>', 'create the volume in the AZ of this instance (without attaching it)')
    .option('--attach <instanceId>', 'attach to this instance (and, without --az or --near, create the volume in its AZ)')
    .option('--device <name>', 'device name for --attach, e.g. /dev/sdf')
    .option('--id <volumeId>', 'choose the volume id (makes the request safely repeatable)')
    .option('--tag <key=value>', 'tag the volume (repeatable)', collectTag)
    .option('--encrypted', 'encrypt the volume')
    .option('--kms-key <id>', 'KMS key for encryption')
    .option('--snapshot <snapshotId>', 'create from this snapshot')
    .option('--multi-attach', 'allow attaching to several instances (io1/io2)')
    .action(async (options, command: Command) => {
      // An option given empty (a variable that expanded to nothing) goes to the API, which refuses it: dropped,
      // `--id ""` made a new volume on every run and `--snapshot ""` an empty one.
      if (options.device !== undefined && options.attach === undefined) throw new UsageError('--device needs --attach');
      if (options.az !== undefined && options.near !== undefined) throw new UsageError('give either --az or --near, not both');
      const spec: VolumeSpec = {
        sizeGiB: options.size,
        volumeType: options.type,
        ...(options.iops !== undefined ? { iops: options.iops } : {}),
        ...(options.throughput !== undefined ? { throughput: options.throughput } : {}),
        ...(options.az !== undefined ? { availabilityZone: options.az } : {}),
        ...(options.near !== undefined ? { placementInstanceId: options.near } : {}),
        ...(options.encrypted ? { encrypted: true } : {}),
        ...(options.kmsKey !== undefined ? { kmsKeyId: options.kmsKey } : {}),
        ...(options.snapshot !== undefined ? { snapshotId: options.snapshot } : {}),
        ...(options.tag ? { tags: options.tag } : {}),
        ...(options.multiAttach ? { multiAttach: true } : {}),
      };
      const request: CreateVolumeRequest = {
        spec,
        ...(options.id !== undefined ? { volumeId: options.id } : {}),
        ...(options.attach !== undefined ? { attachTo: { instanceId: options.attach, ...(options.device !== undefined ? { device: options.device } : {}) } } : {}),
      };
      const api = client(command);
      fieldOptions = CREATE_OPTIONS;
      const { status, body } = await api.createVolume(request).catch(async (error: unknown) => {
        // JSON output prints no hint, so there is nothing to work one out for (nor a volume to read for it).
        if (globals(command).output === 'json') throw error;
        // Only the refusal of a create that named no placement at all: a malformed zone or a conflict says what it is.
        const placed = options.az !== undefined || options.near !== undefined || options.attach !== undefined;
        const unplaced = !placed && error instanceof ApiError && error.status === 400 && (error.problem?.errors ?? []).some((issue) => issue.path === 'spec.availabilityZone');
        if (unplaced) throw new HintedError(error, PLACEMENT_HINT);
        // The id of a volume that exists with another spec, or placed elsewhere than --attach's instance (one being deleted
        // says itself what to do, on `volumeId`; an attach refused, its device held say, names what to change).
        const issues = error instanceof ApiError && error.problem?.type === problemType('conflict') ? error.problem.errors : [];
        const volumeId = options.id as string | undefined;
        if (volumeId === undefined || issues.length === 0) throw error;
        // The volume as it reads, read once and only where the hint depends on it; undefined when it cannot be read.
        let read: Promise<VolumeDetails | undefined> | undefined;
        const existing = () => (read ??= api.getVolume(volumeId).then(({ body }) => body, () => undefined));
        // `attachTo.instanceId` alone: the volume is as asked for but cannot also be attached to --attach's instance (it is
        // not multi-attach, or is attached to EBS's most instances), or --attach placed it and it is placed elsewhere.
        if (options.attach !== undefined && issues.length === 1 && issues[0]!.path === 'attachTo.instanceId') {
          const refused = options.az !== undefined || options.near !== undefined ? 'attach' : refusedFor(await existing(), options.attach);
          if (refused === 'attach') {
            throw new HintedError(
              error,
              `--id ${volumeId} names a volume that cannot also be attached to ${options.attach}: detach it from another instance first ` +
                `(\`ebs-provisioner volumes detach ${volumeId} <instanceId>\`; \`ebs-provisioner volumes get ${volumeId}\` shows its attachments), ` +
                'or create another volume with another --id',
            );
          }
          if (refused === undefined) throw error;
        }
        const differs = (path: string) => path.startsWith('spec.') || path === 'attachTo.instanceId';
        if (!issues.every((issue) => differs(issue.path))) throw error;
        const hint = await differentVolumeHint(volumeId, issues.map((issue) => issue.path), options, existing);
        throw hint === undefined ? error : new HintedError(error, hint);
      });
      print(command, body, () => `${status === 201 ? 'Created' : 'Already exists (same spec)'}: ${body.volumeId}\n\n${volumeDetails(body)}`);
    });

  volumes
    .command('list')
    .description('list volumes')
    .option('--state <state>', `only volumes in this state: ${LISTED_VOLUME_STATES.join(', ')}`, volumeState)
    .option('--instance <instanceId>', 'only volumes with an attachment to this instance (asked for, attached or being detached)')
    .option('--limit <n>', 'show at most this many (with more left, prints the cursor to continue from)', POSITIVE)
    .option('--cursor <cursor>', 'continue from the cursor a listing with --limit printed (with the same --state and --instance)')
    .action(async (options, command: Command) => {
      const api = client(command);
      fieldOptions = { instanceId: '--instance', cursor: '--cursor' };
      const items: VolumeListItem[] = [];
      let cursor: string | undefined = options.cursor;
      do {
        const remaining = options.limit === undefined ? 100 : Math.min(100, options.limit - items.length);
        const { body } = await api.listVolumes({ limit: remaining, cursor, state: options.state, instanceId: options.instance });
        items.push(...body.items);
        cursor = body.cursor;
      } while (cursor && (options.limit === undefined || items.length < options.limit));
      // Left only when --limit stopped the listing with volumes still to come.
      const more = cursor === undefined ? '' : `\n\nMore volumes: continue with --cursor ${cursor}`;
      print(command, { items, ...(cursor === undefined ? {} : { cursor }) }, () => (items.length === 0 ? 'No volumes.' : volumesTable(items)) + more);
    });

  volumes
    .command('get')
    .description('show a volume with its status and attachments')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .action(async (volumeId: string, _options, command: Command) => {
      const { body } = await client(command).getVolume(volumeId);
      print(command, body, () => volumeDetails(body));
    });

  volumes
    .command('grow')
    .description('grow a volume to at least this size (a volume already asking for as much or more is left as it is)')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .requiredOption('--size <GiB>', 'new size in GiB', POSITIVE)
    .action(async (volumeId: string, options: { size: number }, command: Command) => {
      fieldOptions = { sizeGiB: '--size' };
      // Two grows at once end at the larger size: one that lands second never takes back a larger size the other asked for.
      const body = await patchAsRead(client(command), volumeId, 'size', (current) => {
        if (current.spec.sizeGiB < options.size) return { sizeGiB: options.size };
        io.stderr(`volume ${volumeId} already asks for ${current.spec.sizeGiB} GiB; left as it is (volumes modify --size asks for less before the volume is made)\n`);
        return undefined;
      });
      print(command, body, () => volumeDetails(body));
    });

  volumes
    .command('modify')
    .description("change a volume's size, type, IOPS or throughput (and, until it is created, its placement or snapshot)")
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .option('--size <GiB>', 'new size in GiB', POSITIVE)
    .option('--type <type>', `new volume type (${VOLUME_TYPES.join(', ')})`)
    .option('--iops <n>', 'new provisioned IOPS', POSITIVE)
    .option('--throughput <MiBps>', 'new throughput in MiB/s (gp3)', POSITIVE)
    .option('--clear-iops', 'drop the IOPS setting: gp3 goes back to its baseline 3000; needed when moving to a type without it, e.g. gp2')
    .option('--clear-throughput', 'drop the throughput setting (gp3: back to 125 MiB/s)')
    .option('--az <zone>', 'new availability zone, e.g. after EC2 refused the one given (only until the volume is created)')
    .option('--near <instanceId>', 'create the volume in the AZ of this instance instead (only until the volume is created)')
    .option('--snapshot <snapshotId>', 'create from this snapshot instead (only until the volume is created)')
    .action(async (volumeId: string, options, command: Command) => {
      if (options.az !== undefined && options.near !== undefined) throw new UsageError('give either --az or --near, not both');
      if (options.iops !== undefined && options.clearIops) throw new UsageError('give either --iops or --clear-iops, not both');
      if (options.throughput !== undefined && options.clearThroughput) throw new UsageError('give either --throughput or --clear-throughput, not both');
      const patch: PatchVolumeRequest = {
        ...(options.size !== undefined ? { sizeGiB: options.size } : {}),
        ...(options.type !== undefined ? { volumeType: options.type } : {}),
        ...(options.iops !== undefined ? { iops: options.iops } : options.clearIops ? { iops: null } : {}),
        ...(options.throughput !== undefined ? { throughput: options.throughput } : options.clearThroughput ? { throughput: null } : {}),
        ...(options.az !== undefined ? { availabilityZone: options.az } : {}),
        ...(options.near !== undefined ? { placementInstanceId: options.near } : {}),
        ...(options.snapshot !== undefined ? { snapshotId: options.snapshot } : {}),
      };
      if (Object.keys(patch).length === 0) throw new UsageError('give at least one of --size, --type, --iops, --throughput, --clear-iops, --clear-throughput, --az, --near, --snapshot');
      fieldOptions = MODIFY_OPTIONS;
      const { body } = await client(command).patchVolume(volumeId, patch).catch((error: unknown) => {
        // A spec the change makes invalid for its IOPS or throughput, a new type's say: the volume keeps the setting
        // unless the command drops it, with an option the API's field names do not point to.
        const fields = error instanceof ApiError && error.status === 400 ? new Set((error.problem?.errors ?? []).map((issue) => issue.path)) : new Set<string>();
        const hints = [
          ...(fields.has('iops') ? ['--iops <n> sets the IOPS, --clear-iops drops the setting'] : []),
          ...(fields.has('throughput') ? ['--throughput <MiBps> sets the throughput, --clear-throughput drops the setting'] : []),
        ];
        throw hints.length > 0 ? new HintedError(error, hints.join('; ')) : error;
      });
      print(command, body, () => volumeDetails(body));
    });

  volumes
    .command('tag')
    .description("set and remove a volume's tags (the others stay as they are)")
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .option('--tag <key=value>', 'set this tag (repeatable)', collectTag)
    .option('--untag <key>', 'remove this tag (repeatable)', collectUntag)
    .action(async (volumeId: string, options: { tag?: Record<string, string>; untag?: string[] }, command: Command) => {
      if (!options.tag && !options.untag) throw new UsageError('give at least one of --tag, --untag');
      const both = Object.keys(options.tag ?? {}).filter((key) => options.untag?.includes(key));
      if (both.length > 0) throw new UsageError(`both set and removed: ${both.join(', ')}`);
      fieldOptions = { tags: '--tag' };
      // The API replaces the tag map whole: start from the volume's tags as they are, so another client's change made meanwhile is read and kept.
      let absent: string[] = [];
      const body = await patchAsRead(client(command), volumeId, 'tags', (current) => {
        const tags = { ...current.spec.tags, ...options.tag };
        absent = (options.untag ?? []).filter((key) => !Object.hasOwn(tags, key));
        for (const key of options.untag ?? []) delete tags[key];
        return { tags: Object.keys(tags).length > 0 ? tags : null };
      });
      // A mistyped key would otherwise go unnoticed: nothing is removed for it.
      if (absent.length > 0) io.stderr(`volume ${volumeId} had no tag ${absent.join(', ')}; nothing removed for ${absent.length === 1 ? 'it' : 'them'}\n`);
      print(command, body, () => volumeDetails(body));
    });

  volumes
    .command('attach')
    .description('attach a volume to an instance')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .argument('<instanceId>', 'the EC2 instance id', pathSegment)
    .option('--device <name>', 'device name, e.g. /dev/sdf (the system picks one otherwise)')
    .action(async (volumeId: string, instanceId: string, options, command: Command) => {
      fieldOptions = { device: '--device' };
      const { status, body } = await client(command).attach(volumeId, instanceId, options.device !== undefined ? { device: options.device } : {});
      print(command, body, () => `${status === 201 ? 'Attaching' : 'Already requested'}: ${attachmentLine(body)}`);
    });

  volumes
    .command('detach')
    .description('detach a volume from an instance')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .argument('<instanceId>', 'the EC2 instance id', pathSegment)
    .option('--force', "force the detach (EC2's Force), also one under way: a last resort, the instance does not flush its caches and data may be lost")
    .action(async (volumeId: string, instanceId: string, options: { force?: boolean }, command: Command) => {
      const { body } = await client(command).detach(volumeId, instanceId, { force: options.force === true });
      print(command, body, () => `${body.forceDetach ? 'Detaching (forced)' : 'Detaching'}: ${attachmentLine(body)}`);
    });

  volumes
    .command('retry')
    .description('try again after the volume ended in an error')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .action(async (volumeId: string, _options, command: Command) => {
      const { body } = await client(command).retryVolume(volumeId);
      print(command, body, () => `Retrying: ${body.volumeId}\n\n${volumeDetails(body)}`);
    });

  volumes
    .command('retry-attachment')
    .description('try attaching again after the attachment ended in an error')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .argument('<instanceId>', 'the EC2 instance id', pathSegment)
    .action(async (volumeId: string, instanceId: string, _options, command: Command) => {
      const { body } = await client(command).retryAttachment(volumeId, instanceId);
      print(command, body, () => `Retrying: ${attachmentLine(body)}`);
    });

  volumes
    .command('delete')
    .description('delete a volume (it is detached everywhere first)')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .action(async (volumeId: string, _options, command: Command) => {
      const { body } = await client(command).deleteVolume(volumeId);
      print(command, body, () => `Deleting: ${body.volumeId}\n\n${volumeDetails(body)}`);
    });

  program
    .command('instances')
    .description('inspect instances')
    .command('attachments')
    .description("list an instance's attachments")
    .argument('<instanceId>', 'the EC2 instance id', pathSegment)
    .action(async (instanceId: string, _options, command: Command) => {
      const { body } = await client(command).instanceAttachments(instanceId);
      print(command, body, () => (body.items.length === 0 ? 'No attachments.' : attachmentsTable(body.items)));
    });

  program
    .command('wait')
    .description('wait until a volume (or, with --attachment, its attachment) reaches a state')
    .argument('<volumeId>', 'the volume record id', pathSegment)
    .option('--attachment <instanceId>', 'wait for the attachment to this instance', waitedInstanceId)
    .requiredOption(
      '--state <states>',
      `wanted state(s), comma-separated or repeated, e.g. available,in-use: a volume's (${waitableStates({}).join(', ')}) ` +
        `or, with --attachment, an attachment's (${waitableStates({ instanceId: '' }).join(', ')})`,
      commaList,
    )
    .option('--timeout <seconds>', 'give up after this long (0: check once)', wholeNumberOption({ min: 0 }), 600)
    .option('--interval <seconds>', `time between checks (at most ${MAX_TIMER_SECONDS}, about 24 days)`, wholeNumberOption({ min: 1, max: MAX_TIMER_SECONDS }), 2)
    .addHelpText(
      'after',
      '\nA removed record counts as deleted (volume) or detached (attachment); an\n' +
        'attachment whose volume record was removed from the table is followed through\n' +
        "its instance's attachments until it is gone too. A record that does not exist,\n" +
        'or is removed, while another state is wanted ends the wait at once (exit 1).\n' +
        'A record in error (not the error it was in when its delete or detach was asked\n' +
        'for, nor the InvalidRecord error of a record put right in the table: the system\n' +
        'takes those up), a spec change the system refused, or an attachment waiting to\n' +
        "attach a volume in error (it waits for the volume's retry) ends it too (exit 4)\n" +
        'unless that state is wanted, and so does the timeout (exit 3).\n' +
        "A volume whose change waits for EC2's limit on modifications (4 per volume in\n" +
        'any 24 hours) until after the timeout ends it at once (exit 5) when only that\n' +
        'change can bring the wanted states (available, in-use, modifying); the message\n' +
        'says until when. A look the API answers with 429 (throttled) or a 5xx, or does\n' +
        'not answer within 30 s, is tried again at the next interval, until the timeout\n' +
        '(then exit 1). A look is given no more than the time left before the timeout (at\n' +
        'least 5 s): one not answered by then ends the wait as its timeout (exit 3).',
    )
    .action(async (volumeId: string, options, command: Command) => {
      const target = { volumeId, states: options.state as string[], ...(options.attachment ? { instanceId: options.attachment as string } : {}) };
      const known = waitableStates(target);
      // `--state ""` (a variable that expanded to nothing) wants nothing: the wait could only time out.
      if (target.states.length === 0) throw new UsageError(`--state names no state; use ${known.join(', ')}`);
      const unknown = target.states.filter((state) => !known.includes(state));
      if (unknown.length > 0) {
        throw new UsageError(`unknown state ${unknown.join(', ')} for ${target.instanceId ? 'an attachment' : 'a volume'}; use ${known.join(', ')}`);
      }
      const outcome = await waitFor(target, {
        client: client(command),
        clock: io.clock,
        timeoutMs: options.timeout * 1000,
        intervalMs: options.interval * 1000,
        progress: await createProgress(io),
      });
      if (globals(command).output === 'json') line(JSON.stringify(outcome, null, 2));
      exitCode = WAIT_EXIT[outcome.result];
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and version are successes; anything else commander rejects is a usage error.
      return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    if (error instanceof UsageError) {
      io.stderr(`error: ${error.message}\n`);
      return EXIT.usage;
    }
    const output = program.opts<GlobalOptions>().output;
    io.stderr(`${formatError(error instanceof HintedError ? error.failure : error, output, fieldOptions)}\n`);
    const hint = error instanceof HintedError ? error.hint : refusalHint(error);
    // In JSON, stderr holds the problem document alone.
    if (hint !== undefined && output !== 'json') io.stderr(`hint: ${hint}\n`);
    return EXIT.failed;
  }
}

/**
 * What to do after a refusal of the API whose message does not say it: the others name the fields to
 * put right, or what to do (`detach it first`, `there is nothing to retry`).
 */
function refusalHint(error: unknown): string | undefined {
  if (!(error instanceof ApiError) || error.problem === undefined) return undefined;
  switch (error.problem.type) {
    case problemType('not-found'):
      return 'ids are case-sensitive: `ebs-provisioner volumes list` shows the volumes, `ebs-provisioner volumes get <volumeId>` the attachments of one';
    case problemType('no-such-route'):
      return `is the endpoint (--endpoint or ${ENDPOINT_ENV}) the API's base URL? The local API's is ${DEFAULT_ENDPOINT}; a deployed one's is the stack's ApiUrl output, its stage included`;
    case problemType('missing-authentication-token'):
      return "give --endpoint the stack's ApiUrl output, its stage included; requests to a custom domain name are signed only with --sigv4";
    case problemType('not-authorized'):
      return 'the AWS credentials the requests are signed with (AWS_PROFILE, say) need execute-api:Invoke on this API, and must not have expired';
    case problemType('throttled'):
      return "the API's rate limit turned the request away: try again in a moment";
    case problemType('invalid-record'):
      return invalidRecordDeleteHint(error.problem.detail);
    default:
      return undefined;
  }
}

/**
 * Why a create naming a volume (`volume`, as it reads), placed by the instance it attaches the volume
 * to, was refused on `attachTo.instanceId` alone: placed elsewhere (`placement`), or placed there, so
 * the attach is what was refused (`attach`); undefined when the volume could not be read.
 */
function refusedFor(volume: VolumeDetails | undefined, instanceId: string): 'attach' | 'placement' | undefined {
  if (volume === undefined) return undefined;
  return volume.spec.placementInstanceId === instanceId && volume.spec.availabilityZone === undefined ? 'attach' : 'placement';
}

/** The fields of a refused create that differ from the volume in its placement (`attachTo.instanceId`: the one --attach gives it). */
const PLACEMENT_PATHS: readonly string[] = ['spec.availabilityZone', 'spec.placementInstanceId', 'attachTo.instanceId'];
/** Spec fields `volumes modify` changes whenever asked. */
const MODIFIABLE_PATHS: readonly string[] = ['spec.sizeGiB', 'spec.volumeType', 'spec.iops', 'spec.throughput'];
/** Spec fields no command of this CLI changes (the API's PATCH does, only until the volume is created), as the hint names them. */
const UNCHANGED_BY_CLI: Readonly<Record<string, string>> = { 'spec.encrypted': 'encryption', 'spec.kmsKeyId': 'KMS key', 'spec.multiAttach': 'Multi-Attach setting' };

/**
 * What to do about an --id that names a volume with another spec or placement (`paths`, the fields
 * the API's conflict names): another id, or the commands that make the volume the one asked for.
 * Placement and snapshot change only until CreateVolume is asked for, which only the volume as it
 * reads can tell (`existing`, read only then); `volumes modify --snapshot` sets a snapshot but does
 * not clear one. Undefined when the volume must be read and cannot be.
 */
async function differentVolumeHint(
  volumeId: string,
  paths: readonly string[],
  options: { az?: string; near?: string; attach?: string; snapshot?: string },
  existing: () => Promise<VolumeDetails | undefined>,
): Promise<string | undefined> {
  const anotherId = 'give another id for a new volume';
  const unchanged = [
    ...paths.flatMap((path) => (UNCHANGED_BY_CLI[path] !== undefined ? [UNCHANGED_BY_CLI[path]] : [])),
    ...(paths.includes('spec.snapshotId') && options.snapshot === undefined ? ['snapshot'] : []),
  ];
  if (unchanged.length > 0) {
    const named = unchanged.length === 1 ? unchanged[0] : `${unchanged.slice(0, -1).join(', ')} and ${unchanged.at(-1)}`;
    return `--id ${volumeId} names a volume that exists and differs in its ${named}, which no command here changes: ${anotherId}`;
  }
  const placement = paths.some((path) => PLACEMENT_PATHS.includes(path));
  const snapshot = paths.includes('spec.snapshotId');
  let untilCreated = '';
  if (placement || snapshot) {
    const volume = await existing();
    if (volume === undefined) return undefined;
    if (creationAsked(volume)) {
      const facts = [...(placement ? [`placed ${placementOf(volume)}`] : []), ...(snapshot ? [`made ${volume.spec.snapshotId === undefined ? 'without a snapshot' : `from ${volume.spec.snapshotId}`}`] : [])];
      const fixed = placement && snapshot ? "a volume's placement and snapshot are" : placement ? "a volume's placement is" : "a volume's snapshot is";
      return `--id ${volumeId} names a volume that exists, ${facts.join(' and ')} for good (${fixed} fixed once EC2 is asked to create it): ${anotherId}`;
    }
    const flags = [
      ...(placement ? [options.az !== undefined ? `--az ${options.az}` : `--near ${options.near ?? options.attach}`] : []),
      ...(snapshot ? [`--snapshot ${options.snapshot}`] : []),
    ];
    const does = placement && snapshot ? 'places it and sets its snapshot' : placement ? 'places it' : 'sets its snapshot';
    untilCreated = ` (\`${flags.join(' ')}\` ${does} as asked: it is not created yet)`;
  }
  const commands = [
    ...(placement || snapshot || paths.some((path) => MODIFIABLE_PATHS.includes(path)) ? [`\`ebs-provisioner volumes modify ${volumeId}\`${untilCreated}`] : []),
    ...(paths.includes('spec.tags') ? [`\`ebs-provisioner volumes tag ${volumeId}\``] : []),
  ];
  return `--id ${volumeId} names a volume that exists: ${anotherId}${commands.length > 0 ? `, or change this one with ${commands.join(' and ')}` : ''}`;
}

/**
 * Whether the fields fixed at creation (placement, snapshot) can no longer change: EC2 made the
 * volume (an EC2 id), or CreateVolume was asked for in the AZ it shows (recorded with the request,
 * and forgotten with it when EC2 refused it), as the API judges a PATCH of those fields.
 */
function creationAsked(volume: VolumeDetails): boolean {
  return volume.ebsVolumeId !== undefined || volume.availabilityZone !== undefined;
}

function placementOf(volume: VolumeDetails): string {
  const zone = volume.availabilityZone ?? volume.spec.availabilityZone;
  return zone !== undefined ? `in ${zone}` : `in the AZ of ${volume.spec.placementInstanceId}`;
}

/** The URL as given but with its password masked, or undefined when it holds none: a password is not printed back. */
function withoutPassword(url: URL | undefined): string | undefined {
  if (url === undefined || url.password === '') return undefined;
  const masked = new URL(url.href);
  masked.password = '***';
  return masked.href;
}

function createClient(options: GlobalOptions, io: CliIo): ApiClient {
  // Named the way the user gave it: the option, or the environment variable behind its default.
  const given = options.endpoint === io.env[ENDPOINT_ENV] ? ENDPOINT_ENV : '--endpoint';
  let url: URL | undefined;
  try {
    url = new URL(options.endpoint);
  } catch {
    url = undefined;
  }
  // `localhost:3000` parses, as a URL of scheme `localhost:`: only http and https reach an API.
  if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    // An empty one is refused too, not taken as unset: it is most likely a variable that expanded to nothing,
    // and the local API is not where such a command was meant to go.
    const what = options.endpoint === '' ? `${given} is empty` : `${given} ${withoutPassword(url) ?? options.endpoint}`;
    const unset = options.endpoint === '' && given === ENDPOINT_ENV ? ` (unset ${ENDPOINT_ENV} for the local API)` : '';
    throw new UsageError(`${what}: expected an http:// or https:// URL, such as ${DEFAULT_ENDPOINT}${unset}`);
  }
  // fetch refuses such a URL, which read as the API not reached; and the password is not to be printed back.
  if (url.username !== '' || url.password !== '') {
    throw new UsageError(`${given} holds a user name or password (user:password@): the API takes none in its URL; give it without them, such as ${DEFAULT_ENDPOINT}`);
  }
  // Each request's path is resolved against the base URL, which drops a query or fragment with the stage path before it.
  if (/[?#]/.test(options.endpoint)) {
    throw new UsageError(`${given} ${options.endpoint}: the API's base URL has no query or fragment (?…, #…); give it without, such as ${DEFAULT_ENDPOINT}`);
  }
  if (!options.sigv4 && !isExecuteApiUrl(url)) {
    return new ApiClient({ endpoint: options.endpoint, ...(io.fetch ? { fetch: io.fetch } : {}) });
  }
  if (url.protocol === 'http:' && !LOOPBACK_HOST.test(url.hostname)) {
    // A signed request carries the signature (good for the same request for 5 minutes) and any session token.
    throw new UsageError(`${given} ${options.endpoint}: signed requests go over https:// only (or to this machine), so no one on the way can read or replay them`);
  }
  // Empty, as the endpoint: most likely a variable that expanded to nothing, not a wish for the URL's region.
  if (options.region === '') throw new UsageError('--region is empty: give the AWS region to sign for, such as us-east-1, or leave the option out');
  const region = options.region ?? regionFromUrl(url) ?? io.env.AWS_REGION ?? io.env.AWS_DEFAULT_REGION;
  if (!region) {
    throw new UsageError('cannot tell which AWS region to sign for: the URL names none and neither AWS_REGION nor AWS_DEFAULT_REGION is set; pass --region, such as --region us-east-1');
  }
  return new ApiClient({
    endpoint: options.endpoint,
    signer: createRequestSigner({ region, credentials: saysWhereCredentialsComeFrom(io.credentials ?? defaultCredentials()) }),
    ...(io.fetch ? { fetch: io.fetch } : {}),
  });
}

/**
 * Credentials whose absence says what to do: the SDK's own words (`Could not load credentials from
 * any providers`) name neither where it looked nor what to set.
 */
function saysWhereCredentialsComeFrom(credentials: AwsCredentialsProvider): AwsCredentialsProvider {
  return async () => {
    try {
      return await credentials();
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(
        `no AWS credentials to sign the request with (${reason}): set AWS_PROFILE (after \`aws sso login\` for an SSO profile), ` +
          'or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY',
        { cause: error },
      );
    }
  };
}

/**
 * The AWS SDK's default credential chain, made once for the run: it keeps what it resolved until it
 * expires. One per request resolved them again for every request (an STS, SSO or credential_process
 * call on each of a wait's polls).
 */
function defaultCredentials(): AwsCredentialsProvider {
  let chain: AwsCredentialsProvider | undefined;
  return async () => {
    if (!chain) {
      const { fromNodeProviderChain } = await import('@aws-sdk/credential-providers');
      chain = fromNodeProviderChain();
    }
    return chain();
  };
}

/** A spinner on a terminal; otherwise one plain line per change, so logs stay readable. */
async function createProgress(io: CliIo): Promise<Progress> {
  if (io.isTTY) {
    const { default: ora } = await import('ora');
    const spinner = ora({ stream: process.stderr }).start();
    return {
      update: (text) => {
        spinner.text = text;
      },
      succeed: (text) => void spinner.succeed(text),
      fail: (text, hint) => {
        spinner.fail(text);
        if (hint !== undefined) io.stderr(`hint: ${hint}\n`);
      },
      stop: () => {
        if (spinner.isSpinning) spinner.stop();
      },
    };
  }
  let last = '';
  return {
    update: (text) => {
      if (text !== last) io.stderr(`${text}\n`);
      last = text;
    },
    succeed: (text) => io.stderr(`done: ${text}\n`),
    fail: (text, hint) => io.stderr(`failed: ${text}\n${hint === undefined ? '' : `hint: ${hint}\n`}`),
    stop: () => undefined,
  };
}

/**
 * A reader that stops early (`ebs-provisioner --help | head -1`) closes the pipe: what is left to
 * print has nowhere to go, which is the reader's choice, not a failure of the command. Without a
 * listener the stream's EPIPE is thrown as an uncaught error, its stack printed, exit 1.
 */
function tolerateClosedPipe(stream: NodeJS.WritableStream): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
}

/** Runs the CLI on this process's arguments and streams. */
export async function main(): Promise<void> {
  tolerateClosedPipe(process.stdout);
  tolerateClosedPipe(process.stderr);
  process.exitCode = await runCli(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    // A terminal that reports no width (some pseudo-terminals) cannot host a spinner.
    isTTY: Boolean(process.stderr.isTTY) && (process.stderr.columns ?? 0) > 0,
    clock: new SystemClock(),
  });
}

function isEntryPoint(): boolean {
  if (!process.argv[1]) return false;
  try {
    return realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) await main();
