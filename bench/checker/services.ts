/**
 * The service under test as separate processes, each restartable on its own port with its own
 * state: PostgreSQL (a fresh database, reached by the service through a TCP proxy that can cut every
 * connection), a Temporal dev server on a SQLite file, the local SVM node, a worker and the API (which
 * hosts no worker). `close` ends every process and drops the database, also after a failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client as PgClient } from 'pg';
import { loadConfig, type Config } from '../../src/config/config';
import { freePort, freePortPair } from '../../src/main/ports';
import { startTemporalDevServer, type TemporalDevServer } from '../../dev/temporal/dev-server';
import { forkEm, fundFeePayer, openRuntime } from '../../src/main/runtime';
import { createApiKey, ensureOrganization } from '../../src/custody/credentials';
import { roleNames } from '../../src/domain/roles';
import { startTcpProxy, throughPort, type TcpProxy } from '../../test/support/tcp-proxy';
import { spawnService, type Service } from '../processes';

export interface Tenant {
  organization: string;
  apiKey: string;
  /** A key with the APPROVE role, named in the guarded accounts' debit limits. */
  approverKey: string;
  approverId: string;
}

export interface ServicesOptions {
  blockTimeMs: number;
  /** The database's name (default: a random `ledger_chaos_…`); a test that spawns the checker names it to drop it whatever happens. */
  databaseName?: string;
  adminUrl?: string;
  log: (message: string) => void;
}

export class Services {
  private temporal!: TemporalDevServer;
  private node!: Service;
  private worker!: Service;
  private api!: Service;
  private proxy!: TcpProxy;
  private admin!: PgClient;
  private readonly cleanups: (() => unknown)[] = [];
  /** Error lines of API and worker processes killed since (kept past their restart). */
  private readonly errorsSeen: string[] = [];
  private env: Record<string, string> = {};
  readonly workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ledger-checker-'));
  readonly databaseName: string;
  apiUrl = '';
  nodeUrl = '';
  feePayer = '';
  private ports = { temporal: 0, node: 0, api: 0 };

  constructor(private readonly options: ServicesOptions) {
    this.databaseName = options.databaseName ?? `ledger_chaos_${randomBytes(4).toString('hex')}`;
    this.cleanups.push(() => fs.rmSync(this.workDir, { recursive: true, force: true }));
  }

  /** Starts everything, and makes one organization per client with its keys (before the API runs). */
  async start(clients: number): Promise<Tenant[]> {
    const adminUrl = this.options.adminUrl ?? process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    this.admin = new PgClient({ connectionString: adminUrl });
    await this.admin.connect();
    this.cleanups.push(() => this.admin.end());
    await this.admin.query(`create database ${this.databaseName}`);
    this.cleanups.push(() => this.admin.query(`drop database if exists ${this.databaseName} with (force)`));
    const url = new URL(adminUrl);
    url.pathname = `/${this.databaseName}`;
    const databaseUrl = url.toString();
    this.proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    this.cleanups.push(() => this.proxy.close());

    this.ports = { temporal: await freePort(), node: await freePortPair(), api: await freePort() };
    // Its HTTP port (the gRPC port + 1000) may be taken by chance: another free port then.
    for (let tries = 1; ; tries++) {
      try {
        await this.startTemporal();
        break;
      } catch (error) {
        if (tries >= 3) throw error;
        this.ports.temporal = await freePort();
      }
    }
    this.cleanups.push(() => this.temporal.close());
    await this.startNode();
    this.cleanups.push(() => this.node.stop());
    const config: Config = {
      ...loadConfig({}),
      dataDir: this.workDir,
      databaseUrl,
      feePayerKeyFile: path.join(this.workDir, 'fee-payer.json'),
      keyEncryptionKey: randomBytes(32).toString('base64'),
      clusters: [{ name: 'LOCAL', rpcUrl: this.nodeUrl, allowsAirdrop: true }],
    };
    const runtime = await openRuntime({ ...config, databaseUrl }, () => {}, { migrate: true });
    const tenants: Tenant[] = [];
    try {
      await fundFeePayer(runtime, config, () => {});
      this.feePayer = runtime.feePayerAddress;
      for (let i = 0; i < clients; i++) {
        const { organization } = await ensureOrganization(forkEm(runtime.orm), runtime.sealer, `checker-${i}`);
        const { apiKey } = await createApiKey(
          forkEm(runtime.orm),
          organization,
          roleNames.filter((r) => r !== 'ADMIN'),
          config.platformName,
        );
        const approver = await createApiKey(forkEm(runtime.orm), organization, ['APPROVE', 'READ'], config.platformName);
        tenants.push({ organization: organization.externalId, apiKey, approverKey: approver.apiKey, approverId: approver.id });
      }
    } finally {
      await runtime.close();
    }
    this.env = {
      DATABASE_URL: throughPort(databaseUrl, this.proxy.port),
      TEMPORAL_ADDRESS: this.temporal.address,
      SVM_CLUSTERS: `LOCAL=${this.nodeUrl}`,
      KEY_ENCRYPTION_KEY: config.keyEncryptionKey!,
      FEE_PAYER_KEY_FILE: config.feePayerKeyFile,
      DATA_DIR: this.workDir,
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
      // The API only starts writes; the worker process runs them.
      API_HOSTS_WORKER: 'false',
      WRITE_WAIT_SECONDS: '20',
      TEMPORAL_WRITE_TASK_TIMEOUT_SECONDS: '3',
    };
    await this.startWorker();
    this.cleanups.push(() => this.worker.stop());
    await this.startApi();
    this.cleanups.push(() => this.api.stop());
    return tenants;
  }

  private async startTemporal() {
    this.temporal = await startTemporalDevServer({ dataDir: path.join(this.workDir, 'temporal'), port: this.ports.temporal, ui: false, log: () => {} });
  }
  private async startNode() {
    this.node = await spawnService(
      'local-node',
      {
        DATA_DIR: this.workDir,
        LOCAL_NODE_PORT: String(this.ports.node),
        LOCAL_NODE_BLOCK_TIME_MS: String(this.options.blockTimeMs),
        // The fork fault's hook (fork.ts).
        LOCAL_NODE_FAULT_CONTROLS: 'true',
      },
      /Local SVM node at (\S+)/,
    );
    this.nodeUrl = this.node.url;
  }
  private async startWorker() {
    this.worker = await spawnService('worker', this.env, /worker polling/);
  }
  private async startApi() {
    this.api = await spawnService('api', { ...this.env, PORT: String(this.ports.api) }, /API listening on (https?:\/\/[^\s"]+)/);
    this.apiUrl = this.api.url;
  }

  /** SIGKILL one part, as a crash would; `restart` brings it back on the same port with the same state. */
  async kill(part: 'worker' | 'api' | 'temporal' | 'node'): Promise<void> {
    if (part === 'api' || part === 'worker') this.errorsSeen.push(this[part].errors());
    this.errorsSeen.splice(0, Math.max(0, this.errorsSeen.length - 20));
    await { worker: () => this.worker.kill(), api: () => this.api.kill(), temporal: () => this.temporal.kill(), node: () => this.node.kill() }[part]();
  }
  async restart(part: 'worker' | 'api' | 'temporal' | 'node'): Promise<void> {
    await { worker: () => this.startWorker(), api: () => this.startApi(), temporal: () => this.startTemporal(), node: () => this.startNode() }[part]();
  }

  /** Ends every connection the service holds to its database (pg_terminate_backend); answers how many. */
  async dropDatabaseConnections(): Promise<number> {
    const { rowCount } = await this.admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [
      this.databaseName,
    ]);
    return rowCount ?? 0;
  }

  /** The database unreachable for the service (every connection cut, new ones reset) or back. */
  setDatabaseDown(down: boolean): void {
    this.proxy.setDown(down);
  }

  /** The Temporal server's address (the same across restarts). */
  get temporalAddress(): string {
    return this.temporal.address;
  }

  /** What the API and the worker printed last (for a failed run). */
  output(): string {
    const errors = this.errorsSeen
      .concat(this.api?.errors() ?? '', this.worker?.errors() ?? '')
      .filter(Boolean)
      .join('\n');
    return `--- errors the API and the worker logged ---\n${errors}\n--- api ---\n${this.api?.output() ?? ''}\n--- worker ---\n${this.worker?.output() ?? ''}\n--- node ---\n${this.node?.output() ?? ''}`;
  }

  async close(): Promise<void> {
    for (const cleanup of this.cleanups.reverse()) {
      try {
        await cleanup();
      } catch (error) {
        this.options.log(`cleanup: ${(error as Error).message}`);
      }
    }
  }
}
