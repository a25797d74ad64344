/** Loopback ports for what the service starts itself (PGlite's socket) and for the dev stack (the Temporal dev server, tests, the bench). */
import net from 'node:net';

const HOST = '127.0.0.1';

/** A port nothing listens on now (the OS picks it; another process may still take it before the caller binds). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** A free port whose next one is free too: the local node serves PubSub on its RPC port + 1, as a cluster does. */
export async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await freePort();
    if (port < 65535 && (await isPortFree(port + 1))) return port;
  }
  throw new Error('no free pair of loopback ports after 50 tries');
}

export function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, HOST, () => server.close(() => resolve(true)));
  });
}
