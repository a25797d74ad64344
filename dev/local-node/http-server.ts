/** The HTTP side of the RPC endpoint: POST bodies in, JSON out, plus `GET /health` like a validator. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HttpEndpoint {
  port: number;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 16 * 1024 * 1024;

export function serveJsonRpc(host: string, port: number, handle: (body: string) => string | null): Promise<HttpEndpoint> {
  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/health') {
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      return;
    }
    if (request.method !== 'POST') {
      response.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        response.writeHead(413).end();
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      if (response.headersSent) return;
      const body = chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8');
      const reply = handle(body);
      if (reply === null) {
        response.writeHead(204).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) }).end(reply);
    });
  });
  // Clients keep connections open between requests; outlive their idle timeouts.
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
