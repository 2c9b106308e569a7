/** A moto backend whose set-up fails lets go of the endpoint: no connection of its clients is left open. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { createMotoBackend } from '../../lib/local/moto-backend.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

it('closes the connections its clients opened when the table cannot be created, and fails with the refusal', async () => {
  const open = new Set<Socket>();
  let requests = 0;
  // An endpoint that refuses the CreateTable, as DynamoDB does a request it will not take, and keeps connections open for more.
  server = createServer((request, response) => {
    requests++;
    request.resume();
    request.on('end', () => {
      response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' });
      response.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#AccessDeniedException', message: 'not authorized to perform: dynamodb:CreateTable' }));
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const error = (await createMotoBackend({ endpoint, ownerTagValue: 'local' }).catch((e: unknown) => e)) as Error;
  expect(error.name).toBe('AccessDeniedException');
  expect(error.message).toBe('not authorized to perform: dynamodb:CreateTable');
  expect(requests).toBe(1);
  // The endpoint keeps an idle connection for a minute: closed now, it was the client's doing.
  await vi.waitFor(() => expect(open.size).toBe(0), { timeout: 2_000 });
});
