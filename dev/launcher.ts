/**
 * `npm start`: everything in one process on embedded defaults. Whatever is configured is used
 * (DATABASE_URL, TEMPORAL_ADDRESS, SVM_CLUSTERS); whatever is not is started here: PostgreSQL
 * fallback (PGlite), the Temporal dev server with its Web UI, and the local SVM node.
 */
import path from 'node:path';
import { loadConfig } from '../src/config/config';
import { programsFromSpec, startLocalNode, type LocalNode } from './local-node';
import { ensureOrganization } from '../src/custody/credentials';
import { devApiKey } from './dev-api-key';
import { resolveDatabase } from '../src/main/database';
import { startTemporalDevServer, type TemporalDevServer } from './temporal/dev-server';
import { forkEm, fundFeePayer, openRuntime } from '../src/main/runtime';
import { startApi } from '../src/main/api';
import { installSdkLogger } from '../src/main/worker';
import { createLogger, infoLog } from '../src/observability/logger';
import { tracingFromConfig } from '../src/observability/tracing';

async function main() {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    console.error(`[ledger] ${(error as Error).message}`);
    process.exit(1);
  }
  // A person at a terminal reads these: pretty lines unless LOG_FORMAT says otherwise.
  const logger = createLogger({ name: 'ledger', level: config.logLevel, format: process.env.LOG_FORMAT ? config.logFormat : 'pretty' });
  const log = infoLog(logger);
  installSdkLogger(logger);
  const stops: (() => Promise<void>)[] = [];
  let stopping: Promise<void> | undefined;
  const stopAll = () =>
    (stopping ??= (async () => {
      for (const stop of [...stops].reverse()) await stop().catch((e) => log(`while stopping: ${(e as Error).message}`));
    })());
  // A Ctrl-C reaches us twice (from the terminal, and relayed by tsx): every signal joins the one stop, none kills us
  // half-way (the Temporal server, in a group of its own, would be left running).
  const onSignal = (signal: NodeJS.Signals) => {
    if (!stopping) log(`${signal}: stopping (API and worker first, the Temporal server last)`);
    void stopAll().then(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const database = await resolveDatabase(config, log);
    stops.push(database.close);
    // PGlite serves one session, and this is the only API process: its rate limits can live in memory.
    if (database.kind === 'pglite') config.rateLimit = { ...config.rateLimit, store: 'memory' };

    let node: LocalNode | undefined;
    if (config.clusters.length === 0) {
      node = await startLocalNode({
        port: Number(process.env.LOCAL_NODE_PORT ?? 8899),
        dataDir: path.join(config.dataDir, 'local-node'),
        blockTimeMs: Number(process.env.LOCAL_NODE_BLOCK_TIME_MS ?? 400),
        programs: programsFromSpec(process.env.LOCAL_NODE_PROGRAMS),
        log,
      });
      stops.push(() => node!.close());
      config.clusters = [{ name: 'LOCAL', rpcUrl: node.url, allowsAirdrop: true }];
      log(`SVM network: local node (LiteSVM over JSON-RPC) at ${node.url} (PubSub ${node.wsUrl}), state under ${path.join(config.dataDir, 'local-node')}`);
    } else {
      log(`SVM networks: ${config.clusters.map((c) => `${c.name}=${c.rpcUrl}`).join(', ')}`);
    }

    let temporal = { address: config.temporal.address, namespace: config.temporal.namespace, uiUrl: undefined as string | undefined };
    if (!temporal.address) {
      const server: TemporalDevServer = await startTemporalDevServer({
        dataDir: path.join(config.dataDir, 'temporal'),
        namespace: config.temporal.namespace,
        // Ctrl-C reaches the launcher alone: API and worker stop first, the server last (stops run in reverse).
        ownProcessGroup: true,
        log,
      });
      stops.push(() => server.close());
      temporal = { address: server.address, namespace: server.namespace, uiUrl: server.uiUrl };
    }

    const tracing = await tracingFromConfig(config.tracing);
    if (tracing) {
      stops.push(() => tracing.shutdown());
      log(`traces exported to ${config.tracing!.tracesUrl} as ${config.tracing!.serviceName}`);
    }
    const runtime = await openRuntime({ ...config, databaseUrl: database.url, databasePoolSize: database.poolSize ?? config.databasePoolSize }, log, {
      migrate: true,
      tracing,
    });
    stops.push(() => runtime.close());
    await fundFeePayer(runtime, config, log);

    // The API hosts the worker: writes start eagerly on it (one process, one connection).
    const api = await startApi(config, runtime, { address: temporal.address!, namespace: temporal.namespace }, log, { hostWorker: true, logger, tracing });
    stops.push(() => api.close());

    const { organization } = await ensureOrganization(forkEm(runtime.orm), runtime.sealer, 'dev', 'Development organization');
    const keyFile = path.join(config.dataDir, 'dev-api-key');
    const key = await devApiKey(() => forkEm(runtime.orm), organization, config.platformName, keyFile);
    log(
      key.reused
        ? `API key of organization "dev": the one kept in ${keyFile}`
        : `API key of organization "dev": a new one, kept in ${keyFile}${key.revoked ? `; ${key.revoked} earlier one(s) revoked` : ''}`,
    );

    console.log(`
Ledger Asset Service is running.
  API:              ${api.url}   (docs: ${api.url}/docs, OpenAPI: ${api.url}/api/v1/openapi.json)
  Temporal Web UI:  ${temporal.uiUrl ?? '(external cluster: use its UI)'}
  Global fee payer: ${runtime.feePayerAddress}
  API key for organization "dev" (all roles): ${key.apiKey}

Try:
  curl -s -X POST ${api.url}/api/v1/accounts -H "Authorization: Bearer ${key.apiKey}" -H 'content-type: application/json' -d '{"itemData":{"managed":true,"seed":{"amount":1}}}'
`);
  } catch (error) {
    log(`start-up failed: ${(error as Error).stack ?? error}`);
    await stopAll();
    process.exit(1);
  }
}

void main();
