/** The API process: Koa over the runtime, writes started on Temporal. */
import http from 'node:http';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../api/app';
import { loadConfig, type Config } from '../config/config';
import { openRuntime, type Log, type Runtime } from './runtime';

export interface ApiServer {
  url: string;
  server: http.Server;
  close(): Promise<void>;
}

export async function startApi(config: Config, runtime: Runtime, temporal: { address: string; namespace: string }, log: Log, port = config.port): Promise<ApiServer> {
  const connection = await Connection.connect({ address: temporal.address });
  const client = new Client({ connection, namespace: temporal.namespace });
  const app = createApp(
    {
      orm: runtime.orm,
      temporal: { client, taskQueue: config.temporal.taskQueue },
      networks: runtime.networks,
      sealer: runtime.sealer,
      keyStore: runtime.keyStore,
      audit: (message) => log(`audit: ${message}`),
      platformName: config.platformName,
      rateLimit: config.rateLimit,
      defaultCommitment: config.defaultCommitment,
      writeWaitMs: config.writeWaitMs,
      now: () => new Date(),
      ready: async () => {
        await runtime.orm.em.getConnection().execute('select 1');
        await connection.workflowService.getSystemInfo({});
        return true;
      },
    },
    (message, error) => log(`${message}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  );
  const server = http.createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(port, config.host, resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://${config.host}:${address.port}`,
    server,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await connection.close();
    },
  };
}

/** `npm run api`: needs DATABASE_URL, TEMPORAL_ADDRESS and SVM_CLUSTERS. */
async function main(config: Config, log: Log) {
  if (!config.databaseUrl || !config.temporal.address || config.clusters.length === 0) {
    throw new Error('npm run api needs DATABASE_URL, TEMPORAL_ADDRESS and SVM_CLUSTERS (npm start runs everything with embedded defaults)');
  }
  const runtime = await openRuntime({ ...config, databaseUrl: config.databaseUrl }, log, { migrate: true });
  const api = await startApi(config, runtime, { address: config.temporal.address, namespace: config.temporal.namespace }, log);
  log(`API listening on ${api.url}`);
  const stop = async () => {
    await api.close();
    await runtime.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main(loadConfig(), (m) => console.log(`[api] ${m}`)).catch((error) => {
    console.error(`[api] ${error.message}`);
    process.exit(1);
  });
}
