import { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseOperationMessage, QueueSendError, SqsOperationQueue } from '../../lib/aws/sqs-queue.js';
import type { QueuedOperation } from '../../lib/engine/ports.js';

const sqs = mockClient(SQSClient);
const QUEUE_URL = 'https://sqs.us-east-1.amazonaws.com/123456789012/operations';

function operations(count: number): QueuedOperation[] {
  return Array.from({ length: count }, (_, i) => ({
    message: { op: 'check-volume', key: { kind: 'volume', volumeId: `v${i}` }, reason: 'progress check' },
    delaySeconds: i % 2 === 0 ? 0 : 30,
  }));
}

function queue(sleeps: number[] = []): SqsOperationQueue {
  return new SqsOperationQueue({
    client: new SQSClient({ region: 'us-east-1' }),
    queueUrl: QUEUE_URL,
    retry: { maxAttempts: 3, baseDelayMs: 10, sleep: async (ms) => void sleeps.push(ms) },
  });
}

type Entry = { Id?: string };
const allSucceed = (input: { Entries?: Entry[] }) => ({
  Successful: (input.Entries ?? []).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: 'x' })),
  Failed: [],
});

describe('SqsOperationQueue', () => {
  beforeEach(() => sqs.reset());
  afterEach(() => vi.restoreAllMocks());

  it('sends in batches of ten with each message body and delay', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(allSucceed);
    await queue().send(operations(23));
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((call) => call.args[0].input.Entries?.length)).toEqual([10, 10, 3]);
    const entries = calls.flatMap((call) => call.args[0].input.Entries ?? []);
    expect(entries.map((e) => JSON.parse(e.MessageBody!).key.volumeId)).toEqual(operations(23).map((o) => (o.message.key as { volumeId: string }).volumeId));
    expect(entries.map((e) => e.DelaySeconds)).toEqual(operations(23).map((o) => o.delaySeconds));
    expect(calls[0]!.args[0].input.QueueUrl).toBe(QUEUE_URL);
  });

  it('sends nothing for an empty list', async () => {
    await queue().send([]);
    expect(sqs.calls()).toHaveLength(0);
  });

  it('retries only the entries that failed, with backoff', async () => {
    const sleeps: number[] = [];
    // Full jitter: a random part of the backoff, here the whole of it.
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    sqs
      .on(SendMessageBatchCommand)
      .resolvesOnce({
        Successful: [{ Id: '0', MessageId: 'a', MD5OfMessageBody: 'x' }],
        Failed: [
          { Id: '1', SenderFault: false, Code: 'InternalError', Message: 'try again' },
          { Id: '2', SenderFault: false, Code: 'ServiceUnavailable' },
        ],
      })
      .callsFake(allSucceed);
    await queue(sleeps).send(operations(3));
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls).toHaveLength(2);
    expect(calls[1]!.args[0].input.Entries?.map((e) => e.Id)).toEqual(['1', '2']);
    expect(sleeps).toEqual([9.99]);
  });

  it('throws with details when entries keep failing, without retrying sender faults', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: Entry[] }) => ({
      Successful: (input.Entries ?? []).filter((e) => e.Id === '0').map((e) => ({ Id: e.Id, MessageId: 'a', MD5OfMessageBody: 'x' })),
      Failed: (input.Entries ?? [])
        .filter((e) => e.Id !== '0')
        .map((e) =>
          e.Id === '1'
            ? { Id: e.Id, SenderFault: true, Code: 'InvalidParameterValue', Message: 'bad delay' }
            : { Id: e.Id, SenderFault: false, Code: 'InternalError', Message: 'still failing' },
        ),
    }));
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const sleeps: number[] = [];
    const error = (await queue(sleeps).send(operations(3)).catch((e: unknown) => e)) as QueueSendError;
    expect(error).toBeInstanceOf(QueueSendError);
    expect(error.failures).toEqual([
      expect.objectContaining({ code: 'InvalidParameterValue', senderFault: true, message: operations(3)[1]!.message }),
      expect.objectContaining({ code: 'InternalError', senderFault: false, message: operations(3)[2]!.message }),
    ]);
    expect(error.message).toContain('2 operation message(s) not sent (1 sent)');
    // 3 attempts; the sender fault is only in the first.
    const calls = sqs.commandCalls(SendMessageBatchCommand);
    expect(calls.map((c) => c.args[0].input.Entries?.map((e) => e.Id))).toEqual([['0', '1', '2'], ['2'], ['2']]);
    // A wait before each retry, twice as long as the one before.
    expect(sleeps).toEqual([5, 10]);
  });

  it('by default sends a failing entry 5 times, waiting up to 100 ms before the first retry and twice as long before each later one', async () => {
    sqs.on(SendMessageBatchCommand).callsFake((input: { Entries?: Entry[] }) => ({
      Successful: [],
      Failed: (input.Entries ?? []).map((e) => ({ Id: e.Id, SenderFault: false, Code: 'InternalError' })),
    }));
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const sleeps: number[] = [];
    const standard = new SqsOperationQueue({ client: new SQSClient({ region: 'us-east-1' }), queueUrl: QUEUE_URL, retry: { sleep: async (ms) => void sleeps.push(ms) } });
    await expect(standard.send(operations(1))).rejects.toBeInstanceOf(QueueSendError);
    expect(sqs.commandCalls(SendMessageBatchCommand)).toHaveLength(5);
    expect(sleeps).toEqual([50, 100, 200, 400]);
  });

  it('writes the characters SQS refuses in a body (U+FFFE, U+FFFF: a key written into the table by hand may hold them) as JSON escapes, read back as they were', async () => {
    sqs.on(SendMessageBatchCommand).callsFake(allSucceed);
    const key = { kind: 'volume' as const, volumeId: 'v\ufffe\uffff\\\uffff' };
    await queue().send([{ message: { op: 'check-volume', key, reason: 'invalid, and its status does not say why' }, delaySeconds: 0 }]);
    const body = sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries![0]!.MessageBody!;
    // SQS's allowed characters: #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF.
    expect(body).toMatch(/^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u);
    expect(parseOperationMessage(body)).toEqual({ ok: true, message: { op: 'check-volume', key, reason: 'invalid, and its status does not say why' } });
  });

  it('rejects an out-of-range delay before sending anything', async () => {
    const bad = [...operations(12), { message: operations(1)[0]!.message, delaySeconds: 901 }];
    await expect(queue().send(bad)).rejects.toThrow(/operations\[12\]\.delaySeconds/);
    await expect(queue().send([{ ...operations(1)[0]!, delaySeconds: 1.5 }])).rejects.toThrow(RangeError);
    await expect(queue().send([{ ...operations(1)[0]!, delaySeconds: -1 }])).rejects.toThrow(/operations\[0\]\.delaySeconds must be a whole number of seconds in 0\.\.900, got -1/);
    expect(sqs.calls()).toHaveLength(0);
  });

  it("sends a delay of 0 and of 900 seconds, SendMessageBatch's bounds", async () => {
    sqs.on(SendMessageBatchCommand).callsFake(allSucceed);
    await queue().send([0, 900].map((delaySeconds) => ({ ...operations(1)[0]!, delaySeconds })));
    expect(sqs.commandCalls(SendMessageBatchCommand)[0]!.args[0].input.Entries!.map((e) => e.DelaySeconds)).toEqual([0, 900]);
  });
});

describe('parseOperationMessage', () => {
  it('accepts a valid message and keeps only known fields', () => {
    const body = JSON.stringify({
      op: 'attach',
      key: { kind: 'attachment', volumeId: 'v1', instanceId: 'i-1' },
      dueAt: 1_700_000_000_000,
      tokenAt: 1_700_000_001_000,
      reason: 'attach requested',
      extra: 'ignored',
    });
    expect(parseOperationMessage(body)).toEqual({
      ok: true,
      message: {
        op: 'attach',
        key: { kind: 'attachment', volumeId: 'v1', instanceId: 'i-1' },
        dueAt: 1_700_000_000_000,
        tokenAt: 1_700_000_001_000,
        reason: 'attach requested',
      },
    });
    expect(parseOperationMessage('{"op":"check-volume","key":{"kind":"volume","volumeId":"v1"}}')).toEqual({
      ok: true,
      message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'v1' } },
    });
    // The reconciler's look keeps its mark; anything but true is refused.
    expect(parseOperationMessage('{"op":"check-volume","key":{"kind":"volume","volumeId":"v1"},"nudge":true}')).toEqual({
      ok: true,
      message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'v1' }, nudge: true },
    });
    expect(parseOperationMessage('{"op":"check-volume","key":{"kind":"volume","volumeId":"v1"},"nudge":false}').ok).toBe(false);
    // A check of a chain keeps the start of its operation.
    expect(parseOperationMessage('{"op":"check-volume","key":{"kind":"volume","volumeId":"v1"},"chainOf":"2026-01-01T00:00:00.000Z"}')).toEqual({
      ok: true,
      message: { op: 'check-volume', key: { kind: 'volume', volumeId: 'v1' }, chainOf: '2026-01-01T00:00:00.000Z' },
    });
    // A retry of a failed attempt keeps the next attempt it was sent for.
    expect(parseOperationMessage('{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"retryOf":"2026-01-01T00:00:02.000Z"}')).toEqual({
      ok: true,
      message: { op: 'attach', key: { kind: 'volume', volumeId: 'v1' }, retryOf: '2026-01-01T00:00:02.000Z' },
    });
  });

  it.each([
    ['not json', /not JSON/],
    ['{"op":"explode","key":{"kind":"volume","volumeId":"v1"}}', /op/],
    ['{"op":"attach","key":{"kind":"attachment","volumeId":"v1"}}', /instanceId/],
    ['{"op":"attach","key":{"kind":"attachment","volumeId":"v1","instanceId":""}}', /instanceId/],
    ['{"op":"attach","key":{"kind":"volume","volumeId":""}}', /volumeId/],
    ['{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"dueAt":-5}', /dueAt/],
    ['{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"tokenAt":1.5}', /tokenAt/],
    ['{"op":"attach","key":{"kind":"volume","volumeId":"v1"},"tokenAt":"soon"}', /tokenAt/],
    ['[]', /invalid operation message/],
  ])('rejects %s naming the problem', (body, pattern) => {
    const parsed = parseOperationMessage(body);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.error).toMatch(pattern);
  });
});
