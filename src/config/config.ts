/**
 * Configuration from the environment, read once in a composition root and passed down.
 * Every value has a development default so `npm start` needs nothing set.
 */
import path from 'node:path';
import type { OraclePolicy } from '../domain/oracle-job';
import type { OutboundUrlPolicy } from '../network/outbound-url';

export interface ClusterConfig {
  /** The `svmCluster` name, e.g. LOCAL or SOLANA_DEVNET. */
  name: string;
  rpcUrl: string;
  /** Whether requestAirdrop works there (local node, devnet, testnet): the global fee payer is funded automatically. */
  allowsAirdrop: boolean;
}

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Undefined when DATABASE_URL is not set: the launcher picks local PostgreSQL or PGlite. */
  databaseUrl?: string;
  databasePoolSize: number;
  /**
   * apiHostsWorker (API_HOSTS_WORKER, default true): the API process runs a worker on its own
   * connection and starts writes eagerly on it (no task-queue hand-off); separate `npm run worker`
   * processes serve the same task queue beside it.
   */
  temporal: { address?: string; namespace: string; taskQueue: string; apiHostsWorker: boolean; writeTaskTimeoutSeconds: number };
  /** Empty when SVM_CLUSTERS is not set: the launcher starts the local node as cluster LOCAL. */
  clusters: ClusterConfig[];
  /**
   * The backend players of dkgKeys (DKG_PLAYERS, comma-separated codes, default player-1..3). Each
   * keeps its shares in its own directory: DKG_PLAYERS_DIR/<code> (default <dataDir>/dkg-players).
   */
  dkgPlayers: string[];
  dkgPlayersDir?: string;
  defaultCluster?: string;
  platformName: string;
  /** Base64 of the 32-byte key-encryption key for DATABASE-held private keys. */
  keyEncryptionKey?: string;
  /** KEY_ENCRYPTION_KEYS_PREVIOUS: base64 KEKs (comma-separated) that only unseal, for values a KEK rotation has not re-wrapped yet. */
  previousKeyEncryptionKeys?: string[];
  /** SECRETS_DIRECTORY: the encrypted keystore directory of SECRETS-held keys (default <DATA_DIR>/secrets). */
  secretsDirectory?: string;
  /** Path of the global fee payer's key file (a JSON array of 64 bytes, the Solana CLI format). */
  feePayerKeyFile: string;
  rateLimit: { perSecond: number; burst: number };
  defaultCommitment: 'processed' | 'confirmed' | 'finalized';
  /** A write still running after this long answers 202 with its transaction (WRITE_WAIT_SECONDS, default 60). */
  writeWaitMs: number;
  logLevel: 'debug' | 'info' | 'warn' | 'error';
  /** Instrument logos: LOGO_ALLOW_PRIVATE_ADDRESSES (default false), LOGO_MAX_BYTES (default 1 MiB). */
  logoPolicy: { allowPrivateAddresses: boolean; maxBytes: number };
  /** Webhook receivers and OAuth2 token endpoints: WEBHOOK_ALLOW_PRIVATE_ADDRESSES, WEBHOOK_ALLOW_HTTP (both default false: public https only). */
  webhookUrlPolicy: OutboundUrlPolicy;
  /** How long a write over a limit waits for its approvers before it ends REJECTED (APPROVAL_TIMEOUT_SECONDS, default 24 h). */
  approvalTimeoutMs: number;
  /** LOAN_SECONDS_PER_DAY: how long a loan day lasts (default 86,400; 1 to 86,400): tests shorten loan terms with it (docs/loans.md). */
  loanSecondsPerDay: number;
  /**
   * Stopping (SIGTERM): /ready answers 503 for DRAIN_DELAY_SECONDS (default 0; a few seconds behind a
   * load balancer) while requests are still served, then no new connection is taken and requests in
   * flight and the worker's running tasks get SHUTDOWN_GRACE_SECONDS (default 30) to finish.
   */
  shutdown: { drainDelayMs: number; graceMs: number };
  /**
   * Oracle jobs' HTTP sources (docs/oracle-data-sources.md): ORACLE_ALLOWED_HOSTS (comma-separated
   * `host` or `host:port`; default none: no httpTask is accepted), ORACLE_MAX_RESPONSE_BYTES
   * (default 65536), ORACLE_HTTP_TIMEOUT_MS (default 5000).
   */
  oraclePolicy: OraclePolicy;
}

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/ledger';

/** Parses SVM_CLUSTERS: `NAME=url[,NAME=url...]`; airdrops are assumed on names containing LOCAL, DEVNET or TESTNET. */
export function parseClusters(text: string | undefined): ClusterConfig[] {
  if (!text?.trim()) return [];
  return text.split(',').map((entry) => {
    const at = entry.indexOf('=');
    if (at <= 0) throw new Error(`SVM_CLUSTERS entry "${entry}" must be NAME=url`);
    const name = entry.slice(0, at).trim().toUpperCase();
    const rpcUrl = entry.slice(at + 1).trim();
    new URL(rpcUrl);
    return { name, rpcUrl, allowsAirdrop: /LOCAL|DEVNET|TESTNET/.test(name) };
  });
}

function int(value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`expected an integer, got "${value}"`);
  return n;
}

/** A loan day in seconds: a whole number from 1 to 86,400 (a day is never longer than a day). */
function loanSecondsPerDay(value: string | undefined): number {
  const n = int(value, 86_400);
  if (n < 1 || n > 86_400) throw new Error(`LOAN_SECONDS_PER_DAY must be from 1 to 86400, got ${value}`);
  return n;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const dataDir = path.resolve(env.DATA_DIR ?? '.data');
  const commitment = env.DEFAULT_COMMITMENT ?? 'confirmed';
  if (!['processed', 'confirmed', 'finalized'].includes(commitment)) throw new Error(`DEFAULT_COMMITMENT "${commitment}" is not a commitment level`);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: int(env.PORT, 8080),
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: int(env.DATABASE_POOL_SIZE, 10),
    temporal: {
      address: env.TEMPORAL_ADDRESS || undefined,
      namespace: env.TEMPORAL_NAMESPACE || 'default',
      taskQueue: env.TEMPORAL_TASK_QUEUE || 'ledger-writes',
      apiHostsWorker: env.API_HOSTS_WORKER !== 'false',
      // A write is one workflow task: after a worker dies mid-write, another resumes it once this passes.
      writeTaskTimeoutSeconds: int(env.TEMPORAL_WRITE_TASK_TIMEOUT_SECONDS, 10),
    },
    clusters: parseClusters(env.SVM_CLUSTERS),
    dkgPlayers: (env.DKG_PLAYERS || 'player-1,player-2,player-3').split(',').map((c) => c.trim()).filter(Boolean),
    dkgPlayersDir: env.DKG_PLAYERS_DIR ? path.resolve(env.DKG_PLAYERS_DIR) : undefined,
    defaultCluster: env.SVM_DEFAULT_CLUSTER?.toUpperCase() || undefined,
    platformName: (env.PLATFORM_NAME || 'LEDGER').toUpperCase(),
    keyEncryptionKey: env.KEY_ENCRYPTION_KEY || undefined,
    previousKeyEncryptionKeys: (env.KEY_ENCRYPTION_KEYS_PREVIOUS ?? '').split(',').map((k) => k.trim()).filter(Boolean),
    secretsDirectory: env.SECRETS_DIRECTORY ? path.resolve(env.SECRETS_DIRECTORY) : undefined,
    feePayerKeyFile: path.resolve(env.FEE_PAYER_KEY_FILE ?? path.join(dataDir, 'fee-payer.json')),
    rateLimit: { perSecond: int(env.RATE_LIMIT_PER_SECOND, 100), burst: int(env.RATE_LIMIT_BURST, 200) },
    defaultCommitment: commitment as Config['defaultCommitment'],
    writeWaitMs: int(env.WRITE_WAIT_SECONDS, 60) * 1000,
    logLevel: (env.LOG_LEVEL as Config['logLevel']) || 'info',
    logoPolicy: { allowPrivateAddresses: env.LOGO_ALLOW_PRIVATE_ADDRESSES === 'true', maxBytes: int(env.LOGO_MAX_BYTES, 1024 * 1024) },
    webhookUrlPolicy: { allowPrivateAddresses: env.WEBHOOK_ALLOW_PRIVATE_ADDRESSES === 'true', allowHttp: env.WEBHOOK_ALLOW_HTTP === 'true' },
    approvalTimeoutMs: int(env.APPROVAL_TIMEOUT_SECONDS, 86_400) * 1000,
    loanSecondsPerDay: loanSecondsPerDay(env.LOAN_SECONDS_PER_DAY),
    shutdown: { drainDelayMs: int(env.DRAIN_DELAY_SECONDS, 0) * 1000, graceMs: int(env.SHUTDOWN_GRACE_SECONDS, 30) * 1000 },
    oraclePolicy: { allowedHosts: parseOracleHosts(env.ORACLE_ALLOWED_HOSTS), maxResponseBytes: int(env.ORACLE_MAX_RESPONSE_BYTES, 64 * 1024), timeoutMs: int(env.ORACLE_HTTP_TIMEOUT_MS, 5000) },
  };
}

const HOST_ENTRY = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/** Parses ORACLE_ALLOWED_HOSTS: `host` or `host:port` entries, comma-separated; a malformed entry stops the start. */
export function parseOracleHosts(text: string | undefined): string[] {
  if (!text?.trim()) return [];
  return text.split(',').map((entry) => {
    const host = entry.trim().toLowerCase();
    const match = HOST_ENTRY.exec(host);
    if (!match || (match[1] !== undefined && (Number(match[1]) < 1 || Number(match[1]) > 65535))) throw new Error(`ORACLE_ALLOWED_HOSTS entry "${entry.trim()}" must be host or host:port`);
    return host;
  });
}
