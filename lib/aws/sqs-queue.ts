/**
 * OperationQueue on SQS: the retry schedule is delayed messages. Sends in batches of ten (SQS's
 * maximum) with a per-message delay, and retries the entries SQS reports as failed. A batch whose
 * request fails outright does not stop the batches after it: one `QueueSendError` names every message
 * not sent and why.
 */
import { SendMessageBatchCommand, type BatchResultErrorEntry, type SendMessageBatchRequestEntry, type SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import { OPERATION_KINDS, type OperationMessage, type OperationQueue, type QueuedOperation } from '../engine/ports.js';
import { QUEUE } from '../settings.js';

/** SendMessageBatch's maximum entries per request. */
const SEND_BATCH_MAX = 10;

/**
 * Characters SQS refuses in a message body (it takes #x9, #xA, #xD, #x20–#xD7FF, #xE000–#xFFFD and
 * #x10000–#x10FFFF) that JSON.stringify leaves as they are (it escapes control characters and lone
 * surrogates). A key written into the table by hand may hold them, and the reconciler sends it.
 */
const REFUSED_BY_SQS = /[\uFFFE\uFFFF]/g;

/** The message as JSON SQS takes: the characters it refuses as JSON escapes, which read back the same. */
function messageBody(message: OperationMessage): string {
  return JSON.stringify(message).replace(REFUSED_BY_SQS, (char) => `\\u${char.charCodeAt(0).toString(16)}`);
}

export interface SendRetryOptions {
  /** SendMessageBatch requests per chunk, the first included. Default 5. */
  maxAttempts?: number;
  /** First backoff; doubled per retry, with full jitter. Default 100 ms. */
  baseDelayMs?: number;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** How many of a send's failures `QueueSendError`'s message names: a line of a log, not a list of a whole batch. */
export const NAMED_SEND_FAILURES = 5;

/**
 * Some messages could not be sent: SQS refused them (sender fault) or kept failing past the retries.
 * Its message counts the messages not sent and sent, names the first `NAMED_SEND_FAILURES` (5)
 * failures (operation, key, SQS's code and reason) and counts the rest (`and 3 more`); `failures`
 * holds every one.
 */
export class QueueSendError extends Error {
  override readonly name = 'QueueSendError';
  constructor(
    readonly failures: { message: OperationMessage; code: string; detail?: string; senderFault: boolean }[],
    sent: number,
  ) {
    const rest = failures.length - NAMED_SEND_FAILURES;
    super(
      `${failures.length} operation message(s) not sent (${sent} sent): ` +
        failures
          .slice(0, NAMED_SEND_FAILURES)
          .map((f) => `${f.message.op} ${JSON.stringify(f.message.key)}: ${f.code}${f.detail ? ` (${f.detail})` : ''}`)
          .join('; ') +
        (rest > 0 ? `; and ${rest} more` : ''),
    );
  }
}

export class SqsOperationQueue implements OperationQueue {
  private readonly client: SQSClient;
  private readonly queueUrl: string;
  private readonly retry: Required<SendRetryOptions>;

  constructor(options: { client: SQSClient; queueUrl: string; retry?: SendRetryOptions }) {
    this.client = options.client;
    this.queueUrl = options.queueUrl;
    this.retry = {
      maxAttempts: options.retry?.maxAttempts ?? 5,
      baseDelayMs: options.retry?.baseDelayMs ?? 100,
      sleep: options.retry?.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
  }

  async send(operations: QueuedOperation[]): Promise<void> {
    // Check everything before sending anything, so a bad entry never leaves half a batch sent.
    operations.forEach((operation, index) => {
      const { delaySeconds } = operation;
      if (!Number.isInteger(delaySeconds) || delaySeconds < 0 || delaySeconds > QUEUE.maxDelaySeconds) {
        throw new RangeError(
          `operations[${index}].delaySeconds must be a whole number of seconds in 0..${QUEUE.maxDelaySeconds}, got ${delaySeconds}`,
        );
      }
    });
    const failures: QueueSendError['failures'] = [];
    for (let start = 0; start < operations.length; start += SEND_BATCH_MAX) {
      failures.push(...(await this.sendChunk(operations.slice(start, start + SEND_BATCH_MAX))));
    }
    if (failures.length > 0) throw new QueueSendError(failures, operations.length - failures.length);
  }

  /**
   * Sends up to ten; retries retryable failed entries with backoff; returns what finally failed (a
   * request that fails outright, once the SDK's retries are spent, fails what is left of the chunk).
   */
  private async sendChunk(chunk: QueuedOperation[]): Promise<QueueSendError['failures']> {
    const entries = new Map<string, { entry: SendMessageBatchRequestEntry; message: OperationMessage }>(
      chunk.map((operation, index) => [
        String(index),
        {
          message: operation.message,
          entry: { Id: String(index), MessageBody: messageBody(operation.message), DelaySeconds: operation.delaySeconds },
        },
      ]),
    );
    const permanent: QueueSendError['failures'] = [];
    let lastFailed: BatchResultErrorEntry[] = [];
    for (let attempt = 0; entries.size > 0 && attempt < this.retry.maxAttempts; attempt++) {
      if (attempt > 0) await this.retry.sleep(Math.random() * this.retry.baseDelayMs * 2 ** (attempt - 1));
      let response;
      try {
        response = await this.client.send(
          new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: [...entries.values()].map((e) => e.entry) }),
        );
      } catch (error) {
        // The request failed as a whole, past the SDK's own retries: what is left of this chunk is not
        // sent, for that reason. The other chunks are still sent, and the error reports every failure.
        const failed = error instanceof Error ? (error as Error & { $fault?: string }) : new Error(String(error));
        return [
          ...permanent,
          ...[...entries.values()].map(({ message }) => ({
            message,
            code: failed.name,
            detail: failed.message,
            senderFault: '$fault' in failed && failed.$fault === 'client',
          })),
        ];
      }
      for (const ok of response.Successful ?? []) if (ok.Id !== undefined) entries.delete(ok.Id);
      lastFailed = response.Failed ?? [];
      for (const failed of lastFailed) {
        const pending = failed.Id === undefined ? undefined : entries.get(failed.Id);
        if (pending === undefined || !failed.SenderFault) continue;
        // The request itself is wrong for SQS; sending it again cannot succeed.
        entries.delete(failed.Id!);
        permanent.push({ message: pending.message, code: failed.Code ?? 'Unknown', detail: failed.Message, senderFault: true });
      }
    }
    const reasons = new Map(lastFailed.map((failed) => [failed.Id, failed]));
    return [
      ...permanent,
      ...[...entries.entries()].map(([id, { message }]) => ({
        message,
        code: reasons.get(id)?.Code ?? 'NotAcknowledged',
        detail: reasons.get(id)?.Message,
        senderFault: false,
      })),
    ];
  }
}

const recordKeySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('volume'), volumeId: z.string().min(1) }),
  z.object({ kind: z.literal('attachment'), volumeId: z.string().min(1), instanceId: z.string().min(1) }),
]);

/** The OperationMessage shape (lib/engine/ports.ts) as a schema. Unknown fields are dropped. */
export const operationMessageSchema = z.object({
  op: z.enum(OPERATION_KINDS),
  key: recordKeySchema,
  dueAt: z.number().int().nonnegative().optional(),
  tokenAt: z.number().int().nonnegative().optional(),
  nudge: z.literal(true).optional(),
  chainOf: z.string().optional(),
  retryOf: z.string().optional(),
  reason: z.string().optional(),
});

export type ParsedOperationMessage = { ok: true; message: OperationMessage } | { ok: false; error: string };

/**
 * Validates a received message body. A body that is not a valid operation message can never be
 * processed, so the executor drops it with a log instead of letting it retry into the DLQ.
 */
export function parseOperationMessage(body: string): ParsedOperationMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch (error) {
    return { ok: false, error: `message body is not JSON: ${(error as Error).message}` };
  }
  const parsed = operationMessageSchema.safeParse(json);
  if (!parsed.success) return { ok: false, error: `invalid operation message: ${z.prettifyError(parsed.error)}` };
  const { dueAt, tokenAt, nudge, chainOf, retryOf, reason, ...required } = parsed.data;
  return {
    ok: true,
    message: {
      ...required,
      ...(dueAt === undefined ? {} : { dueAt }),
      ...(tokenAt === undefined ? {} : { tokenAt }),
      ...(nudge === undefined ? {} : { nudge }),
      ...(chainOf === undefined ? {} : { chainOf }),
      ...(retryOf === undefined ? {} : { retryOf }),
      ...(reason === undefined ? {} : { reason }),
    },
  };
}
