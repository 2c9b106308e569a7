import { createServer } from 'node:http';
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAwsClients } from '../../lib/aws/clients.js';
import { ITEM_MARSHALL_OPTIONS, fromStreamImage, itemKey, keyFromStreamKeys, toItem } from '../../lib/aws/record-item.js';
import { newVolume, volumeKey } from './engine-fixtures.js';

/** A DynamoDB endpoint that answers every request with an empty JSON document (no item; nothing returned). */
async function dynamoAnswering(): Promise<{ endpoint: string; close: () => Promise<unknown> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-amz-json-1.0' }).end('{}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * A function builds its clients at module scope, reads and writes items through the document
 * client, and reads every stream image of its invocations with the same conversion options the
 * document client was given; the local runtime writes its stream images with them too. Using the
 * clients must leave those options as they are.
 */
describe('stream images in a process whose document client has read and written items', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('are read and written as attribute maps, as before', async () => {
    vi.stubEnv('AWS_EC2_METADATA_DISABLED', 'true');
    const server = await dynamoAnswering();
    try {
      const { doc } = createAwsClients({ endpoint: server.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' } });
      await doc.send(new PutCommand({ TableName: 'records', Item: toItem(newVolume('data-2')) }));
      await doc.send(new GetCommand({ TableName: 'records', Key: itemKey(volumeKey('data-2')) }));
      doc.destroy();
    } finally {
      await server.close();
    }
    const volume = newVolume('data-1');
    const image = marshall(toItem(volume), ITEM_MARSHALL_OPTIONS);
    // A top-level attribute map, not one attribute value wrapping it.
    expect(image).not.toHaveProperty('M');
    expect(image.spec).toEqual({ M: expect.objectContaining({ sizeGiB: { N: String(volume.spec.sizeGiB) } }) });
    expect(fromStreamImage(image)).toEqual(volume);
    expect(keyFromStreamKeys(marshall(itemKey(volumeKey('data-1'))))).toEqual(volumeKey('data-1'));
  });
});
