/**
 * `wait`: polls the API until a volume or an attachment reaches one of the wanted states, showing
 * progress. A record that is gone counts as `deleted` (volume) or `detached` (attachment), since the
 * system removes records once the EC2 resource is gone (an attachment outliving its volume's record,
 * removed from the table, is read from its instance's attachments); a record in the table that is not valid
 * (the API answers 409 `invalid-record`) counts as `error`. An `error` state nobody waited for ends the
 * wait at once, with the reason (not the error a record had before its removal was asked for, nor
 * the `InvalidRecord` error of a record put right in the table: the system takes those up), as does
 * a spec change the system refused (it will never be applied), an attachment waiting to attach a
 * volume in error (it waits for a retry only a client asks for),
 * and a missing record when its removal is not what was waited for: it never comes back by
 * itself, and it is most often a mistyped id. A change that waits for EC2's limit on modifications
 * until after the wait's timeout ends it at once too, when only that change can bring the states
 * waited for. A look the API answers with 429 or a 5xx, or does not answer in time, is tried again at
 * the next interval. A wait that ends without a wanted state says what the user may do next (a hint).
 */
import { MODIFICATION_RATE_RULE } from '../lib/domain/ebs-limits.js';
import { ATTACHMENT_STATES, VOLUME_STATES, type VolumeState } from '../lib/domain/records.js';
import type { Clock } from '../lib/engine/ports.js';
import { cooldownEndMs, INVALID_RECORD_CODE, SPEC_REJECTED_CODE } from '../lib/engine/status.js';
import { problemType } from '../lib/api/problem.js';
import type { AttachmentListItem, VolumeDetails } from '../lib/api/schemas.js';
import { ApiError, ConnectionError, type ApiClient } from './client.js';
import { describeState, invalidRecordDeleteHint } from './format.js';

export interface WaitTarget {
  volumeId: string;
  /** Wait for the attachment to this instance instead of the volume. */
  instanceId?: string;
  states: string[];
}

/** Progress on the terminal: a spinner on a TTY, plain lines otherwise. */
export interface Progress {
  update(text: string): void;
  succeed(text: string): void;
  /** The wait cannot reach what it wants: why, and (`hint`) what the user may do about it. */
  fail(text: string, hint?: string): void;
  /** Ends the display without a verdict (the wait was interrupted by an error). */
  stop(): void;
}

export interface WaitOptions {
  client: ApiClient;
  clock: Clock;
  timeoutMs: number;
  intervalMs: number;
  progress: Progress;
}

export type WaitOutcome =
  | { result: 'reached'; state: string; volume?: VolumeDetails; attachment?: AttachmentListItem }
  /** `state` is the last one seen: absent when no look was answered in time. */
  | { result: 'timeout'; state?: string }
  | { result: 'error'; state: string; message: string }
  /** The volume's change waits for EC2's limit on modifications until `waitsUntil`, after the wait's timeout. */
  | { result: 'cooldown'; state: string; waitsUntil: string; message: string }
  /** The record does not exist (or was removed) and its removal was not waited for. */
  | { result: 'not-found'; state: string; message: string };

/** The states one may wait for: the record states (a removed record counts as `deleted` or `detached`). */
export function waitableStates(target: { instanceId?: string }): readonly string[] {
  return target.instanceId === undefined ? VOLUME_STATES : ATTACHMENT_STATES;
}

interface Observation {
  state: string;
  /** A person-readable line for the progress display. */
  text: string;
  /** False while a volume at rest still has a spec change to apply (its state is about to move). */
  settled: boolean;
  /** A volume at rest whose spec change EBS cannot make: the change will never be applied. */
  refused?: boolean;
  /**
   * A record in error whose removal was asked for since: the system takes the removal up (a removal
   * that failed for good, by contrast, says when it is tried again: `nextAttemptAt`).
   */
  removalAsked?: boolean;
  /** An attachment waiting to attach whose volume is in error: it waits for the volume's retry, which only a client asks for. */
  volumeFailed?: boolean;
  /** A volume at rest whose spec change waits for EC2's limit on modifications until then (epoch ms). */
  cooldownEndMs?: number;
  /** The record that was not found, e.g. `volume data-01`: the target's, or its volume's. */
  missing?: string;
  /** A record in the table that is not valid: its message says to correct it there, the system does nothing with it. */
  invalid?: boolean;
  /**
   * A record put right in the table, valid again while its status still holds the reasons it was
   * not: the system takes it up as soon as it sees the change (a retry, or its removal when dying).
   */
  putRight?: boolean;
  /** The record is dying: the system takes its removal up again by itself. */
  dying?: boolean;
  message?: string;
  volume?: VolumeDetails;
  attachment?: AttachmentListItem;
}

async function observe(client: ApiClient, target: WaitTarget): Promise<Observation> {
  let volume: VolumeDetails;
  try {
    volume = (await client.getVolume(target.volumeId)).body;
  } catch (error) {
    // Only the API's not-found says the record is gone: a 404 for a route it does not know
    // (an endpoint with a wrong path) is an error, not a record deleted.
    if (error instanceof ApiError && error.problem?.type === problemType('not-found')) {
      // An attachment outlives its volume's record removed from the table (code `VolumeRecordRemoved`), and its
      // delete detaches the volume found by its tags: its instance's attachments still show it until it is gone.
      const orphan = target.instanceId === undefined ? undefined : await attachmentWithoutVolume(client, target.volumeId, target.instanceId);
      if (orphan) return observeAttachment(target, orphan, undefined);
      const state = target.instanceId === undefined ? 'deleted' : 'detached';
      return { state, text: `${subject(target)}: ${state} (record removed)`, settled: true, missing: `volume ${target.volumeId}` };
    }
    if (error instanceof ApiError && error.problem?.type === problemType('invalid-record')) {
      // The system does nothing with a record that is not valid: as the watcher marks it, in error.
      return { state: 'error', text: `${subject(target)}: error (InvalidRecord)`, settled: true, invalid: true, message: error.problem.detail };
    }
    throw error;
  }
  if (target.instanceId === undefined) {
    // An available or in-use volume whose new spec EC2 does not match yet is still on its way;
    // a volume being deleted never gets it.
    const applying = volume.life === 'alive' && volume.observedGeneration !== undefined && volume.observedGeneration < volume.generation;
    const atRest = volume.status.state === 'available' || volume.status.state === 'in-use';
    const refused = applying && atRest && volume.status.code === SPEC_REJECTED_CODE;
    const cooldownEnd = applying && atRest ? cooldownEndMs(volume.status) : undefined;
    return {
      state: volume.status.state,
      text: `${subject(target)}: ${describeState(volume)}${applying ? ', change pending' : ''}`,
      settled: !(applying && atRest),
      ...(removalAsked(volume) ? { removalAsked: true } : {}),
      // Valid, as the API answered it: put right in the table since the watcher found it not valid.
      ...(volume.status.code === INVALID_RECORD_CODE ? { putRight: true } : {}),
      ...(volume.life === 'dying' ? { dying: true } : {}),
      ...(refused ? { refused } : {}),
      ...(cooldownEnd !== undefined ? { cooldownEndMs: cooldownEnd } : {}),
      ...(volume.status.message !== undefined ? { message: volume.status.message } : {}),
      volume,
    };
  }
  const attachment = volume.attachments.find((a) => a.instanceId === target.instanceId);
  if (!attachment) {
    return { state: 'detached', text: `${subject(target)}: detached (record removed)`, settled: true, missing: subject(target), volume };
  }
  return observeAttachment(target, attachment, volume);
}

/**
 * The attachment of `volumeId` to `instanceId` when its volume record does not exist, as its
 * instance's attachments show it: undefined once it is gone too.
 */
async function attachmentWithoutVolume(client: ApiClient, volumeId: string, instanceId: string): Promise<AttachmentListItem | undefined> {
  const { body } = await client.instanceAttachments(instanceId);
  return body.items.find((a) => a.volumeId === volumeId);
}

/** What the attachment says, with its `volume` (undefined when the volume's record does not exist). */
function observeAttachment(target: WaitTarget, attachment: AttachmentListItem, volume: VolumeDetails | undefined): Observation {
  // A volume in error stays there until a client retries it, and the attach waits for it as long (one put right in the
  // table is retried by the system).
  const volumeFailed =
    volume !== undefined && attachment.status.state === 'pending' && 'life' in attachment && attachment.life === 'alive' && volume.life === 'alive' &&
    volume.status.state === 'error' && volume.status.code !== INVALID_RECORD_CODE;
  const message = volumeFailed
    ? `volume ${volume.volumeId} is in error${volume.status.code ? ` (${volume.status.code})` : ''}: ${volume.status.message ?? 'no reason given'}; the attach waits until the volume is retried`
    : attachment.status.message;
  return {
    state: attachment.status.state,
    text: `${subject(target)}: ${describeState(attachment)}`,
    settled: true,
    ...(volumeFailed ? { volumeFailed } : {}),
    ...('invalid' in attachment || attachment.status.code === INVALID_RECORD_CODE ? { invalid: true } : {}),
    // Taken up by the system, unless its volume's record is gone (a live one is then not retried).
    ...(!('invalid' in attachment) && attachment.status.code === INVALID_RECORD_CODE && volume !== undefined ? { putRight: true } : {}),
    ...(('life' in attachment && attachment.life === 'dying') || volume?.life === 'dying' ? { dying: true } : {}),
    // A dying volume has its attachments marked dying too, and detached.
    ...('life' in attachment && removalAsked({ ...attachment, life: volume?.life === 'dying' ? 'dying' : attachment.life }) ? { removalAsked: true } : {}),
    ...(message !== undefined ? { message } : {}),
    ...(volume !== undefined ? { volume } : {}),
    attachment,
  };
}

/**
 * A dying record in an error from before its removal was asked for (see `Observation.removalAsked`);
 * not one the system rejects, which it does not act on.
 */
function removalAsked(record: { life: string; status: { state: string; code?: string; nextAttemptAt?: string } }): boolean {
  return record.life === 'dying' && record.status.state === 'error' && record.status.nextAttemptAt === undefined && record.status.code !== INVALID_RECORD_CODE;
}

/**
 * Volume states that a volume whose change is pending reaches only through that change: at rest
 * once EC2 has made it (`settled`), or modifying on the way. A delete or a failure is not held back
 * by a wait for EC2's limit on modifications.
 */
const STATES_AFTER_THE_CHANGE: ReadonlySet<string> = new Set<VolumeState>(['available', 'in-use', 'modifying']);

/** The command line of a command of this CLI, for a hint. */
const command = (args: string) => `\`ebs-provisioner ${args}\``;

/**
 * The code of a volume EC2 reports in state `error`: its data is lost, and a retry only looks at it
 * again (its message says to delete the record and create it again).
 */
const VOLUME_ERROR_CODE = 'VolumeError';

/**
 * What the user may do about a record the wait found failed or refused (for an invalid record, its
 * message says what, save the command that deletes one that may be deleted as it is).
 */
function errorHint(target: WaitTarget, seen: Observation): string | undefined {
  const { volumeId, instanceId } = target;
  if (seen.invalid) return seen.message === undefined ? undefined : invalidRecordDeleteHint(seen.message);
  if (seen.refused) return `change the spec to one EBS can make of the volume, with ${command(`volumes modify ${volumeId}`)}`;
  const lost = seen.volume?.life === 'alive' && seen.volume.status.state === 'error' && seen.volume.status.code === VOLUME_ERROR_CODE;
  // Attaching a lost volume fails too: an attachment in error, or waiting for its volume, is only
  // helped by a new volume (a dying one's detach is the system's to try again, below).
  if (lost && !seen.dying) {
    return `a retry only looks at the volume again: delete the record with ${command(`volumes delete ${volumeId}`)} (which deletes the EC2 volume), then create it again`;
  }
  // A spec field EC2 refused (an AZ, a snapshot) is put right with `volumes modify`, which is the retry too: a
  // `volumes retry` after it would be refused, the volume no longer in error.
  const specFix = `(a spec field EC2 refused is put right with ${command(`volumes modify ${volumeId}`)}, which retries too)`;
  if (seen.volumeFailed) return `fix what the volume's error names, then ${command(`volumes retry ${volumeId}`)} ${specFix}: the attach follows`;
  if (seen.dying) {
    return instanceId === undefined
      ? 'fix what the error names: the system tries the delete again by itself at its next try'
      : 'fix what the error names (the volume still mounted on the instance, say): the system tries the detach again by itself at its next try; ' +
          `a detach EC2 cannot finish can be forced with ${command(`volumes detach ${volumeId} ${instanceId} --force`)}, which may lose data`;
  }
  return instanceId === undefined
    ? `fix what the error names, then ${command(`volumes retry ${volumeId}`)} ${specFix}`
    : `fix what the error names, then ${command(`volumes retry-attachment ${volumeId} ${instanceId}`)}`;
}

function subject(target: WaitTarget): string {
  return target.instanceId === undefined ? `volume ${target.volumeId}` : `attachment ${target.volumeId} → ${target.instanceId}`;
}

export async function waitFor(target: WaitTarget, options: WaitOptions): Promise<WaitOutcome> {
  try {
    return await poll(target, options);
  } finally {
    options.progress.stop();
  }
}

/**
 * A look to try again: answered 429 (API Gateway's throttle) or a 5xx (`internal` and `no-answer` say
 * so), or not answered in time, as API Gateway's 504 says deployed (the local API has no gateway).
 */
function retryable(error: unknown): error is ApiError | ConnectionError {
  return (error instanceof ApiError && (error.status === 429 || error.status >= 500)) || (error instanceof ConnectionError && error.timedOut);
}

function refusal(error: ApiError | ConnectionError): string {
  return error instanceof ApiError ? `the API answered ${error.status} ${error.problem?.title ?? error.message}` : 'the API did not answer in time';
}

/**
 * The least time a look is given, even at the wait's deadline (`--timeout 0` is one look): time for a
 * deployed API's first request, a function's cold start included, to be answered.
 */
const LOOK_FLOOR_MS = 5000;

async function poll(target: WaitTarget, options: WaitOptions): Promise<WaitOutcome> {
  const { client, clock, progress } = options;
  const started = clock.now();
  const deadline = started + options.timeoutMs;
  const elapsed = () => `${Math.round((clock.now() - started) / 1000)}s`;
  let found = false;
  let last: Observation | undefined;
  for (;;) {
    let seen: Observation;
    try {
      // A look ends by the wait's deadline, not the client's own time for a request (at least LOOK_FLOOR_MS for the last one).
      seen = await observe(client.withTimeout(Math.max(LOOK_FLOOR_MS, deadline - clock.now())), target);
    } catch (error) {
      // A look the deadline cut short: the wait timed out, as if the look had found the record still as it was.
      if (error instanceof ConnectionError && error.timedOut && clock.now() >= deadline) {
        const still = last === undefined ? `the API did not answer about ${subject(target)}` : `${subject(target)} is still ${last.state}`;
        progress.fail(
          `${still} after ${elapsed()}; wanted ${target.states.join(' or ')}`,
          `wait again, or with a longer --timeout; ${command(`volumes get ${target.volumeId}`)} shows the status`,
        );
        return { result: 'timeout', ...(last !== undefined ? { state: last.state } : {}) };
      }
      // Throttled, or a failure the API says is safe to retry: a later poll may well be answered.
      if (!retryable(error) || clock.now() >= deadline) throw error;
      progress.update(`${subject(target)}: ${refusal(error)}; trying again`);
      await clock.sleep(Math.min(options.intervalMs, Math.max(0, deadline - clock.now())));
      continue;
    }
    last = seen;
    if (seen.missing === undefined) found = true;
    if (target.states.includes(seen.state) && seen.settled) {
      progress.succeed(`${subject(target)} is ${seen.state} (after ${elapsed()})`);
      return {
        result: 'reached',
        state: seen.state,
        ...(seen.volume ? { volume: seen.volume } : {}),
        ...(seen.attachment ? { attachment: seen.attachment } : {}),
      };
    }
    if (seen.missing !== undefined) {
      // An attachment seen before and gone with its volume's record is named itself: its volume's record may
      // have been gone all along (an attachment outliving it), and it is the attachment that went.
      const message = !found
        ? `${seen.missing} does not exist`
        : seen.missing === subject(target)
          ? `${seen.missing} was removed`
          : `${subject(target)} was removed (volume ${target.volumeId}'s record is gone too)`;
      // A record never found is most often a mistyped id; one removed meanwhile leaves nothing to do.
      const hint = found
        ? undefined
        : target.instanceId !== undefined && seen.missing === subject(target)
          ? `${command(`volumes get ${target.volumeId}`)} shows the volume's attachments`
          : `ids are case-sensitive: ${command('volumes list')} shows the volumes`;
      progress.fail(`${message}; wanted ${target.states.join(' or ')}`, hint);
      return { result: 'not-found', state: seen.state, message };
    }
    if ((seen.state === 'error' && !seen.removalAsked && !seen.putRight) || seen.refused || seen.volumeFailed) {
      const message = seen.message ?? 'no reason given';
      progress.fail(`${subject(target)} ${seen.refused ? 'cannot change' : seen.volumeFailed ? 'cannot attach' : 'failed'}: ${message}`, errorHint(target, seen));
      return { result: 'error', state: seen.state, message };
    }
    // Only the change brings what is waited for, and EC2 allows it only after the deadline: waiting cannot help.
    if (seen.cooldownEndMs !== undefined && seen.cooldownEndMs > deadline && target.states.every((state) => STATES_AFTER_THE_CHANGE.has(state))) {
      const waitsUntil = new Date(seen.cooldownEndMs).toISOString();
      const message = `${subject(target)} waits until ${waitsUntil} to apply its change (${MODIFICATION_RATE_RULE}), after this wait's timeout`;
      progress.fail(`${message}; wanted ${target.states.join(' or ')}`, `wait again with a --timeout that reaches ${waitsUntil}, or once that time is near`);
      return { result: 'cooldown', state: seen.state, waitsUntil, message };
    }
    if (clock.now() >= deadline) {
      progress.fail(
        `${subject(target)} is still ${seen.state} after ${elapsed()}; wanted ${target.states.join(' or ')}`,
        `wait again, or with a longer --timeout; ${command(`volumes get ${target.volumeId}`)} shows the status`,
      );
      return { result: 'timeout', state: seen.state };
    }
    progress.update(seen.text);
    await clock.sleep(Math.min(options.intervalMs, Math.max(0, deadline - clock.now())));
  }
}
