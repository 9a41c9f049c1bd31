import { createServer } from 'node:http';
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stub server received. */
export interface StubRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** A real HTTP server on 127.0.0.1 for tests of HTTP clients: its base URL, what it received, and how to stop it. */
export interface StubServer {
  readonly url: string;
  readonly requests: StubRequest[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 (a free port) whose `answer` decides each response from the request and
 * its 0-based number; an answer that returns 'hang' never responds.
 */
export async function startStubServer(
  answer: (request: StubRequest, number: number, response: ServerResponse) => 'hang' | undefined,
): Promise<StubServer> {
  const requests: StubRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
    });
    request.on('end', () => {
      const received = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(received);
      if (answer(received, requests.length - 1, response) !== 'hang' && !response.writableEnded)
        response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on: bound, then released. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => {
    server.close(() => {
      resolve();
    });
  });
  return port;
}
