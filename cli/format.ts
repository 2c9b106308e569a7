/** How the CLI shows volumes, attachments and errors: aligned tables for people, JSON for scripts. */
import { describeValidationIssues, enclosingFieldPaths } from '../lib/domain/validation.js';
import type { AttachmentListItem, AttachmentView, VolumeDetails, VolumeListItem, VolumeView } from '../lib/api/schemas.js';
import { ApiError, ConnectionError } from './client.js';

export type OutputFormat = 'json' | 'table';

/** Left-aligned columns separated by two spaces; empty cells show as `-`. */
export function table(headers: string[], rows: Array<Array<string | number | undefined>>): string {
  const cells = rows.map((row) => headers.map((_, i) => (row[i] === undefined || row[i] === '' ? '-' : String(row[i]))));
  const widths = headers.map((header, i) => Math.max(header.length, ...cells.map((row) => row[i]!.length)));
  const line = (row: string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  return [line(headers), ...cells.map(line)].join('\n');
}

/** `pending (attempt 2, RequestLimitExceeded, next try 2026-01-01T12:00:05.000Z)`: the state with what a person needs to know. */
export function describeStatus(status: VolumeView['status'] | AttachmentView['status']): string {
  const details: string[] = [];
  if (status.attempts > 0) details.push(`attempt ${status.attempts}`);
  if (status.code) details.push(status.code);
  if (status.nextAttemptAt) details.push(`next try ${status.nextAttemptAt}`);
  return details.length > 0 ? `${status.state} (${details.join(', ')})` : status.state;
}

/**
 * The state, and how long the record's next EC2 call waits in line for the account's request
 * tokens when it does: `pending, ~42 s in line for CreateVolume`.
 */
export function describeState(record: VolumeListItem | AttachmentListItem): string {
  const state = describeStatus(record.status);
  const rateWait = 'rateWait' in record ? record.rateWait : undefined;
  return rateWait ? `${state}, ~${rateWait.seconds} s in line for ${rateWait.action}` : state;
}

function sizeOf(volume: VolumeView): string {
  const { spec } = volume;
  const extras = [spec.iops !== undefined ? `${spec.iops} IOPS` : '', spec.throughput !== undefined ? `${spec.throughput} MiB/s` : '']
    .filter(Boolean)
    .join(', ');
  return `${spec.sizeGiB} GiB ${spec.volumeType}${extras ? ` (${extras})` : ''}`;
}

function placement(volume: VolumeView): string | undefined {
  return volume.availabilityZone ?? volume.spec.availabilityZone ?? (volume.spec.placementInstanceId ? `near ${volume.spec.placementInstanceId}` : undefined);
}

/** A record in the table that is not valid shows its id and its status (`error (InvalidRecord)`); its reasons are in the status message. */
export function volumesTable(volumes: VolumeListItem[]): string {
  return table(
    ['VOLUME', 'STATE', 'LIFE', 'SIZE', 'AZ', 'EBS VOLUME'],
    volumes.map((v) =>
      'invalid' in v ? [v.volumeId, describeStatus(v.status)] : [v.volumeId, describeStatus(v.status), v.life, sizeOf(v), placement(v), v.ebsVolumeId],
    ),
  );
}

/**
 * Attachments with their status messages (last: a message may be long): an attachment shows nowhere
 * else, so what it waits for, or why it failed, is read here.
 */
export function attachmentsTable(attachments: AttachmentListItem[]): string {
  return table(
    ['VOLUME', 'INSTANCE', 'STATE', 'LIFE', 'DEVICE', 'MESSAGE'],
    attachments.map((a) =>
      'invalid' in a
        ? [a.volumeId, a.instanceId, describeState(a), undefined, undefined, a.status.message]
        : [a.volumeId, a.instanceId, describeState(a), a.life, a.device ?? a.requestedDevice, a.status.message],
    ),
  );
}

export function volumeDetails(volume: VolumeDetails): string {
  const rows: Array<[string, string | number | undefined]> = [
    ['Volume', volume.volumeId],
    ['State', describeState(volume)],
    ['Message', volume.status.message],
    ['Life', volume.life],
    ['Size', sizeOf(volume)],
    ['Placement', placement(volume)],
    ['EBS volume', volume.ebsVolumeId],
    ['Generation', volume.observedGeneration !== undefined ? `${volume.generation} (EC2 matches ${volume.observedGeneration})` : volume.generation],
    ['Tags', volume.spec.tags ? Object.entries(volume.spec.tags).map(([k, v]) => `${k}=${v}`).join(', ') : undefined],
    ['Updated', volume.status.updatedAt],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const lines = rows.filter(([, value]) => value !== undefined && value !== '').map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`);
  const attachments = volume.attachments.length > 0 ? `\n\n${attachmentsTable(volume.attachments)}` : '\n\nNo attachments.';
  return lines.join('\n') + attachments;
}

export function attachmentLine(attachment: AttachmentView): string {
  const device = attachment.device ?? attachment.requestedDevice;
  return `${attachment.volumeId} → ${attachment.instanceId}: ${describeState(attachment)}, ${attachment.life}${device ? `, ${device}` : ''}`;
}

/**
 * An error in the chosen output format: with `json`, an API error is the JSON the API answered
 * with (its problem document), for scripts to read; anything else is text as `describeError` says it.
 */
export function formatError(error: unknown, output: OutputFormat, fieldOptions: FieldOptions = {}): string {
  if (output === 'json' && error instanceof ApiError && error.body !== undefined) return JSON.stringify(error.body, null, 2);
  return describeError(error, fieldOptions);
}

/** The command's option for a field of its request (`spec.placementInstanceId`: `--near`), to name beside the API's field. */
export type FieldOptions = Readonly<Record<string, string>>;

/** The option of `path`, or of the field it is in (`spec.tags.team` and `spec.tags["team.name"]` are in `spec.tags`). */
function optionOf(path: string, fieldOptions: FieldOptions): string | undefined {
  const field = enclosingFieldPaths(path).find((enclosing) => Object.hasOwn(fieldOptions, enclosing));
  return field === undefined ? undefined : fieldOptions[field];
}

/** An error as the person at the terminal should read it, field messages included. */
export function describeError(error: unknown, fieldOptions: FieldOptions = {}): string {
  if (error instanceof ApiError) {
    const issues = error.problem?.errors ?? [];
    // The detail holds the same issues listed below it (at its end, or before what to do about them); say them once.
    const summary = issues.length > 0 ? `: ${describeValidationIssues(issues)}` : '';
    const at = error.problem && summary ? error.problem.detail.indexOf(summary) : -1;
    const detail = error.problem && at >= 0
      ? error.problem.detail.slice(0, at) + error.problem.detail.slice(at + summary.length)
      : error.problem?.detail;
    const head = error.problem ? `${error.status} ${error.problem.title}: ${detail}` : `${error.status}: ${error.message}`;
    const fields = issues.map((issue) => {
      const option = optionOf(issue.path, fieldOptions);
      return `  ${issue.path || '(body)'}${option === undefined ? '' : ` (${option})`}: ${issue.message}`;
    });
    return [`error: ${head}`, ...fields].join('\n');
  }
  if (error instanceof ConnectionError) return `error: ${error.message}`;
  return `error: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * The command of this CLI that deletes a record the API found not valid, when the API's
 * `invalid-record` detail says its faults are all ones a delete does not use: the detail names the
 * API's route (`DELETE /volumes/<id>`, or `…/attachments/<instanceId>` for an attachment), which the
 * CLI user reaches through `volumes delete` or `volumes detach`. Undefined for any other detail.
 */
export function invalidRecordDeleteHint(detail: string): string | undefined {
  const route = /\(DELETE \/volumes\/([A-Za-z0-9._-]+)(?:\/attachments\/([A-Za-z0-9-]+))?\)/.exec(detail);
  if (!route) return undefined;
  const [, volumeId, instanceId] = route;
  return instanceId === undefined
    ? `the volume's record may be deleted as it is: \`ebs-provisioner volumes delete ${volumeId}\``
    : `the attachment's record may be deleted as it is: \`ebs-provisioner volumes detach ${volumeId} ${instanceId}\``;
}
