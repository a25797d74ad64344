/**
 * A TCP proxy in front of a server (PostgreSQL, for the outage tests): while it is down every
 * connection through it is cut and new ones are reset at once, as when the database goes away;
 * back up, new connections pass again. Counts the connections it refused.
 */
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Down: cut every open connection and reset new ones; up: pass them. */
  setDown(down: boolean): void;
  /** Connections reset while down. */
  readonly refused: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let down = false;
  let refused = 0;
  const open = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) {
      refused++;
      return void client.resetAndDestroy();
    }
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
      socket.on('error', () => undefined);
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    setDown(value) {
      down = value;
      if (value) for (const socket of open) socket.resetAndDestroy();
    },
    get refused() {
      return refused;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** The URL of a database reached through a proxy on `port`. */
export function throughPort(databaseUrl: string, port: number): string {
  const url = new URL(databaseUrl);
  url.host = `127.0.0.1:${port}`;
  return url.toString();
}
