/**
 * Which PostgreSQL to use: DATABASE_URL when set; else the local server on 127.0.0.1:5432 (its
 * `ledger` database created when missing); else PGlite behind its wire-protocol socket with data
 * under .data/pglite, so `npm start` needs nothing installed (one session, pool size 1).
 */
import net from 'node:net';
import path from 'node:path';
import fs from 'node:fs';
import { DEFAULT_DATABASE_URL, type Config } from '../config/config';
import { ensureDatabase } from '../db/orm';
import type { Log } from './runtime';
import { freePort } from './ports';

export interface ResolvedDatabase {
  url: string;
  kind: 'configured' | 'local-postgresql' | 'pglite';
  poolSize?: number;
  close(): Promise<void>;
}

function listening(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** `localServer` is where a local PostgreSQL is looked for (a parameter so tests can point it at a closed port). */
export async function resolveDatabase(config: Config, log: Log, localServer = { host: '127.0.0.1', port: 5432 }): Promise<ResolvedDatabase> {
  if (config.databaseUrl) return { url: config.databaseUrl, kind: 'configured', close: async () => {} };
  if (await listening(localServer.host, localServer.port)) {
    await ensureDatabase(DEFAULT_DATABASE_URL);
    log(`database: local PostgreSQL (${DEFAULT_DATABASE_URL})`);
    return { url: DEFAULT_DATABASE_URL, kind: 'local-postgresql', close: async () => {} };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const dataDir = path.join(config.dataDir, 'pglite');
  fs.mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir);
  const port = await freePort();
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port });
  await server.start();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  log(`database: nothing on ${localServer.host}:${localServer.port} and no DATABASE_URL, so PGlite with data under ${dataDir} (development only)`);
  return {
    url,
    kind: 'pglite',
    poolSize: 1,
    async close() {
      await server.stop();
      await db.close();
    },
  };
}
