/**
 * Lambda event records built from what the local backends hold, with the fields Lambda fills in,
 * so the handlers see exactly the shapes they see when deployed.
 */
import { marshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord, SQSRecord } from 'aws-lambda';
import { ITEM_MARSHALL_OPTIONS, itemKey, toItem } from '../aws/record-item.js';
import type { ProvisionerRecord, RecordKey } from '../domain/records.js';
import type { OperationMessage } from '../engine/ports.js';

const REGION = 'us-east-1';

function image(record: ProvisionerRecord | undefined) {
  return record ? (marshall(toItem(record), ITEM_MARSHALL_OPTIONS) as NonNullable<DynamoDBRecord['dynamodb']>['NewImage']) : undefined;
}

export function streamRecord(change: {
  eventName: 'INSERT' | 'MODIFY' | 'REMOVE';
  key: RecordKey;
  oldRecord?: ProvisionerRecord;
  newRecord?: ProvisionerRecord;
  sequenceNumber: number;
  at: number;
}): DynamoDBRecord {
  const oldImage = image(change.oldRecord);
  const newImage = image(change.newRecord);
  return {
    eventID: `local-${change.sequenceNumber}`,
    eventName: change.eventName,
    eventVersion: '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: REGION,
    dynamodb: {
      ApproximateCreationDateTime: Math.floor(change.at / 1000),
      Keys: marshall(itemKey(change.key)) as NonNullable<DynamoDBRecord['dynamodb']>['Keys'],
      ...(oldImage ? { OldImage: oldImage } : {}),
      ...(newImage ? { NewImage: newImage } : {}),
      // Stream sequence numbers are decimal strings that sort as numbers; pad so they sort as strings too.
      SequenceNumber: String(change.sequenceNumber).padStart(21, '0'),
      StreamViewType: 'NEW_AND_OLD_IMAGES',
    },
  };
}

export function queueRecord(message: { messageId: string; receiptHandle: string; receiveCount: number; sentAt: number; body: OperationMessage | string }): SQSRecord {
  return {
    messageId: message.messageId,
    receiptHandle: message.receiptHandle,
    body: typeof message.body === 'string' ? message.body : JSON.stringify(message.body),
    attributes: {
      ApproximateReceiveCount: String(message.receiveCount),
      SentTimestamp: String(message.sentAt),
      SenderId: 'local',
      ApproximateFirstReceiveTimestamp: String(message.sentAt),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:${REGION}:000000000000:operations`,
    awsRegion: REGION,
  };
}
