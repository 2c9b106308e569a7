import { createServer } from 'node:http';

/** EC2's answer to a DescribeVolumes that lists no volumes. */
export const NO_VOLUMES_ANSWER =
  '<DescribeVolumesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r-1</requestId><volumeSet/></DescribeVolumesResponse>';

/** An endpoint on the loopback that answers every request as a DescribeVolumes listing no volumes. */
export async function ec2Answering(): Promise<{ endpoint: string; close: () => Promise<unknown> }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on('end', () => response.writeHead(200, { 'content-type': 'text/xml;charset=UTF-8' }).end(NO_VOLUMES_ANSWER));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}
