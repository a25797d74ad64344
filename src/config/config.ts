/**
 * Configuration from the environment, read once in a composition root and passed down.
 * Every value has a development default so `npm start` needs nothing set.
 */
import { bool, cleanEnv, makeValidator, port, str } from 'envalid';
import { logLevels, type LogFormat, type LogLevel } from '../observability/logger';
import fs from 'node:fs';
import path from 'node:path';
import type { OraclePolicy } from '../domain/oracle-job';
import type { OutboundUrlPolicy } from '../network/outbound-url';
import type { TracingConfig } from '../observability/tracing';

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
  /** `connection`: TLS and API key for a secured cluster (temporalConnection below); empty for a plain one. */
  temporal: {
    address?: string;
    namespace: string;
    taskQueue: string;
    apiHostsWorker: boolean;
    writeTaskTimeoutSeconds: number;
    connection?: TemporalConnection;
  };
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
  /**
   * RATE_LIMIT_PER_SECOND / RATE_LIMIT_BURST per API key; RATE_LIMIT_UNKNOWN_KEYS requests without a
   * valid key per client address per RATE_LIMIT_UNKNOWN_KEYS_SECONDS; RATE_LIMIT_STORE: where the
   * counters live, shared by every API process (postgresql) or per process (memory): docs/rate-limits.md.
   */
  rateLimit: { perSecond: number; burst: number; store: RateLimitStoreKind; unknownKeys: { points: number; seconds: number } };
  /** TRUST_PROXY_HOPS: how many proxies in front append to X-Forwarded-For (0: the client address is the socket's). */
  trustProxyHops: number;
  defaultCommitment: 'processed' | 'confirmed' | 'finalized';
  /** A write still running after this long answers 202 with its transaction (WRITE_WAIT_SECONDS, default 60). */
  writeWaitMs: number;
  /**
   * WRITE_DEADLINE_SECONDS (default 900): how long a write keeps retrying a fault of the services it
   * needs (node, PostgreSQL, Temporal) before it has sent anything; past it, it ends with nothing sent
   * and its key may start afresh (docs/outages.md).
   */
  writeDeadlineMs: number;
  /**
   * OPERATOR_ORGANIZATION: the external id of the platform operators' organization, whose ADMIN keys
   * alone may act for another organization (tenancyConfig.overrideOrganizationExternalId); none by
   * default: no key may (docs/tenancy.md).
   */
  operatorOrganization?: string;
  /** LOG_LEVEL (default info) and LOG_FORMAT (json, the default, or pretty): src/observability/logger.ts. */
  logLevel: LogLevel;
  logFormat: LogFormat;
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
  /**
   * Traces, exported by OTLP over HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (`<endpoint>/v1/traces`) or
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT (as is) is set, named OTEL_SERVICE_NAME (default
   * ledger-asset-service); undefined (off, nothing started) otherwise or with OTEL_SDK_DISABLED=true.
   */
  tracing?: NonNullable<TracingConfig>;
  /**
   * RECONCILE_INTERVAL_SECONDS (default 600): how often the reconciliation schedule compares every
   * ACTIVE account and position with the chain (docs/reconciliation.md); 0 pauses the schedule
   * (`cli reconcile` still runs a pass on demand).
   */
  reconcileIntervalSeconds: number;
}

/** What NativeConnection.connect takes beside the address. */
export interface TemporalConnection {
  tls?: { clientCertPair?: { crt: Buffer; key: Buffer }; serverRootCACertificate?: Buffer; serverNameOverride?: string };
  apiKey?: string;
}

export type RateLimitStoreKind = 'postgresql' | 'memory';

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

/** Whole numbers of a range (envalid's num takes fractions and anything Number() takes). */
const int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  makeValidator<number>((input) => {
    if (!/^-?\d+$/.test(input.trim()) || Number(input) < min || Number(input) > max)
      throw new Error(`must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ' up'}, not "${input}"`);
    return Number(input);
  });
/** A comma-separated list, entries trimmed, empty ones dropped. */
const list = makeValidator<string[]>((input) =>
  input
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean),
);
const clusterList = makeValidator<ClusterConfig[]>((input) => parseClusters(input));
const oracleHosts = makeValidator<string[]>((input) => parseOracleHosts(input));
/** An http(s) URL, or empty for none. */
const optionalHttpUrl = makeValidator<string>((input) => {
  if (input === '') return '';
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new Error(`must be an http(s) URL, not "${input}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`must be an http(s) URL, not "${input}"`);
  return input;
});

/** Where traces go (OpenTelemetry's own variables): the signal-specific URL as is, else the base endpoint's /v1/traces. */
function tracing(v: {
  OTEL_SDK_DISABLED: boolean;
  OTEL_SERVICE_NAME: string;
  OTEL_EXPORTER_OTLP_ENDPOINT: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: string;
}): Config['tracing'] {
  if (v.OTEL_SDK_DISABLED) return undefined;
  const tracesUrl = v.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || (v.OTEL_EXPORTER_OTLP_ENDPOINT && `${v.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`);
  return tracesUrl ? { serviceName: v.OTEL_SERVICE_NAME, tracesUrl } : undefined;
}

/** A file's bytes, read at start so a wrong path is named with its variable. */
const readableFile = makeValidator<Buffer>((input) => {
  try {
    return fs.readFileSync(input);
  } catch (error) {
    throw new Error(`cannot read "${input}": ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
});

/**
 * How to reach a secured Temporal cluster: TLS (TEMPORAL_TLS, or any TLS file), mutual TLS with a
 * client certificate and key, a private CA, a server name override, and Temporal Cloud's API key
 * (which needs TLS, so it turns it on).
 */
function temporalConnection(v: {
  TEMPORAL_TLS: boolean;
  TEMPORAL_TLS_CERT_FILE?: Buffer;
  TEMPORAL_TLS_KEY_FILE?: Buffer;
  TEMPORAL_TLS_CA_FILE?: Buffer;
  TEMPORAL_TLS_SERVER_NAME: string;
  TEMPORAL_API_KEY: string;
}): TemporalConnection {
  if (Boolean(v.TEMPORAL_TLS_CERT_FILE) !== Boolean(v.TEMPORAL_TLS_KEY_FILE))
    throw new Error('invalid configuration: TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together (mutual TLS needs both)');
  const tlsWanted = v.TEMPORAL_TLS || Boolean(v.TEMPORAL_TLS_CERT_FILE || v.TEMPORAL_TLS_CA_FILE || v.TEMPORAL_TLS_SERVER_NAME || v.TEMPORAL_API_KEY);
  if (!tlsWanted) return {};
  return {
    tls: {
      ...(v.TEMPORAL_TLS_CERT_FILE && v.TEMPORAL_TLS_KEY_FILE ? { clientCertPair: { crt: v.TEMPORAL_TLS_CERT_FILE, key: v.TEMPORAL_TLS_KEY_FILE } } : {}),
      ...(v.TEMPORAL_TLS_CA_FILE ? { serverRootCACertificate: v.TEMPORAL_TLS_CA_FILE } : {}),
      ...(v.TEMPORAL_TLS_SERVER_NAME ? { serverNameOverride: v.TEMPORAL_TLS_SERVER_NAME } : {}),
    },
    ...(v.TEMPORAL_API_KEY ? { apiKey: v.TEMPORAL_API_KEY } : {}),
  };
}

/** Every invalid variable at once, each named, as one error (envalid's own reporter would exit the process). */
function refuseInvalid({ errors }: { errors: Partial<Record<string, Error>> }): void {
  const problems = Object.entries(errors).map(([name, error]) => `${name}: ${error?.message}`);
  if (problems.length) throw new Error(`invalid configuration: ${problems.join('; ')}`);
}

/** The configuration from environment variables (README "Configuration"), validated by envalid. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const v = cleanEnv(
    env,
    {
      HOST: str({ default: '127.0.0.1' }),
      PORT: port({ default: 8080 }),
      DATA_DIR: str({ default: '.data' }),
      DATABASE_URL: str({ default: '' }),
      DATABASE_POOL_SIZE: int(1)({ default: 10 }),
      TEMPORAL_ADDRESS: str({ default: '' }),
      TEMPORAL_NAMESPACE: str({ default: 'default' }),
      TEMPORAL_TASK_QUEUE: str({ default: 'ledger-writes' }),
      API_HOSTS_WORKER: bool({ default: true }),
      TEMPORAL_WRITE_TASK_TIMEOUT_SECONDS: int(1)({ default: 10 }),
      TEMPORAL_TLS: bool({ default: false }),
      TEMPORAL_TLS_CERT_FILE: readableFile({ default: undefined }),
      TEMPORAL_TLS_KEY_FILE: readableFile({ default: undefined }),
      TEMPORAL_TLS_CA_FILE: readableFile({ default: undefined }),
      TEMPORAL_TLS_SERVER_NAME: str({ default: '' }),
      TEMPORAL_API_KEY: str({ default: '' }),
      SVM_CLUSTERS: clusterList({ default: [] }),
      SVM_DEFAULT_CLUSTER: str({ default: '' }),
      DKG_PLAYERS: list({ default: ['player-1', 'player-2', 'player-3'] }),
      DKG_PLAYERS_DIR: str({ default: '' }),
      PLATFORM_NAME: str({ default: 'LEDGER' }),
      KEY_ENCRYPTION_KEY: str({ default: '' }),
      KEY_ENCRYPTION_KEYS_PREVIOUS: list({ default: [] }),
      SECRETS_DIRECTORY: str({ default: '' }),
      FEE_PAYER_KEY_FILE: str({ default: '' }),
      RATE_LIMIT_PER_SECOND: int(1)({ default: 100 }),
      RATE_LIMIT_BURST: int(1)({ default: 200 }),
      RATE_LIMIT_STORE: str({ choices: ['postgresql', 'memory'] as const, default: 'postgresql' }),
      RATE_LIMIT_UNKNOWN_KEYS: int(1)({ default: 20 }),
      RATE_LIMIT_UNKNOWN_KEYS_SECONDS: int(1)({ default: 60 }),
      TRUST_PROXY_HOPS: int(0, 10)({ default: 0 }),
      DEFAULT_COMMITMENT: str({ choices: ['processed', 'confirmed', 'finalized'] as const, default: 'confirmed' }),
      WRITE_WAIT_SECONDS: int(0)({ default: 60 }),
      WRITE_DEADLINE_SECONDS: int(1)({ default: 900 }),
      OPERATOR_ORGANIZATION: str({ default: '' }),
      LOG_LEVEL: str({ choices: logLevels, default: 'info' }),
      LOG_FORMAT: str({ choices: ['json', 'pretty'] as const, default: 'json' }),
      LOGO_ALLOW_PRIVATE_ADDRESSES: bool({ default: false }),
      LOGO_MAX_BYTES: int(1)({ default: 1024 * 1024 }),
      WEBHOOK_ALLOW_PRIVATE_ADDRESSES: bool({ default: false }),
      WEBHOOK_ALLOW_HTTP: bool({ default: false }),
      APPROVAL_TIMEOUT_SECONDS: int(1)({ default: 86_400 }),
      DRAIN_DELAY_SECONDS: int(0)({ default: 0 }),
      SHUTDOWN_GRACE_SECONDS: int(0)({ default: 30 }),
      ORACLE_ALLOWED_HOSTS: oracleHosts({ default: [] }),
      ORACLE_MAX_RESPONSE_BYTES: int(1)({ default: 64 * 1024 }),
      ORACLE_HTTP_TIMEOUT_MS: int(1)({ default: 5000 }),
      // A loan day in seconds (loan tests shorten terms): never longer than a day.
      LOAN_SECONDS_PER_DAY: int(1, 86_400)({ default: 86_400 }),
      OTEL_EXPORTER_OTLP_ENDPOINT: optionalHttpUrl({ default: '' }),
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: optionalHttpUrl({ default: '' }),
      OTEL_SERVICE_NAME: str({ default: 'ledger-asset-service' }),
      OTEL_SDK_DISABLED: bool({ default: false }),
      // At most a day: a longer gap leaves drift unseen for too long.
      RECONCILE_INTERVAL_SECONDS: int(0, 86_400)({ default: 600 }),
    },
    { reporter: refuseInvalid },
  );
  const dataDir = path.resolve(v.DATA_DIR);
  return {
    host: v.HOST,
    port: v.PORT,
    dataDir,
    databaseUrl: v.DATABASE_URL || undefined,
    databasePoolSize: v.DATABASE_POOL_SIZE,
    temporal: {
      address: v.TEMPORAL_ADDRESS || undefined,
      namespace: v.TEMPORAL_NAMESPACE,
      taskQueue: v.TEMPORAL_TASK_QUEUE,
      apiHostsWorker: v.API_HOSTS_WORKER,
      // A write is one workflow task: after a worker dies mid-write, another resumes it once this passes.
      writeTaskTimeoutSeconds: v.TEMPORAL_WRITE_TASK_TIMEOUT_SECONDS,
      connection: temporalConnection(v),
    },
    clusters: v.SVM_CLUSTERS,
    dkgPlayers: v.DKG_PLAYERS,
    dkgPlayersDir: v.DKG_PLAYERS_DIR ? path.resolve(v.DKG_PLAYERS_DIR) : undefined,
    defaultCluster: v.SVM_DEFAULT_CLUSTER.toUpperCase() || undefined,
    platformName: v.PLATFORM_NAME.toUpperCase(),
    keyEncryptionKey: v.KEY_ENCRYPTION_KEY || undefined,
    previousKeyEncryptionKeys: v.KEY_ENCRYPTION_KEYS_PREVIOUS,
    secretsDirectory: v.SECRETS_DIRECTORY ? path.resolve(v.SECRETS_DIRECTORY) : undefined,
    feePayerKeyFile: path.resolve(v.FEE_PAYER_KEY_FILE || path.join(dataDir, 'fee-payer.json')),
    rateLimit: {
      perSecond: v.RATE_LIMIT_PER_SECOND,
      burst: v.RATE_LIMIT_BURST,
      store: v.RATE_LIMIT_STORE,
      unknownKeys: { points: v.RATE_LIMIT_UNKNOWN_KEYS, seconds: v.RATE_LIMIT_UNKNOWN_KEYS_SECONDS },
    },
    trustProxyHops: v.TRUST_PROXY_HOPS,
    defaultCommitment: v.DEFAULT_COMMITMENT,
    writeWaitMs: v.WRITE_WAIT_SECONDS * 1000,
    writeDeadlineMs: v.WRITE_DEADLINE_SECONDS * 1000,
    operatorOrganization: v.OPERATOR_ORGANIZATION || undefined,
    logLevel: v.LOG_LEVEL,
    logFormat: v.LOG_FORMAT,
    logoPolicy: { allowPrivateAddresses: v.LOGO_ALLOW_PRIVATE_ADDRESSES, maxBytes: v.LOGO_MAX_BYTES },
    webhookUrlPolicy: { allowPrivateAddresses: v.WEBHOOK_ALLOW_PRIVATE_ADDRESSES, allowHttp: v.WEBHOOK_ALLOW_HTTP },
    approvalTimeoutMs: v.APPROVAL_TIMEOUT_SECONDS * 1000,
    loanSecondsPerDay: v.LOAN_SECONDS_PER_DAY,
    shutdown: { drainDelayMs: v.DRAIN_DELAY_SECONDS * 1000, graceMs: v.SHUTDOWN_GRACE_SECONDS * 1000 },
    oraclePolicy: { allowedHosts: v.ORACLE_ALLOWED_HOSTS, maxResponseBytes: v.ORACLE_MAX_RESPONSE_BYTES, timeoutMs: v.ORACLE_HTTP_TIMEOUT_MS },
    tracing: tracing(v),
    reconcileIntervalSeconds: v.RECONCILE_INTERVAL_SECONDS,
  };
}

const HOST_ENTRY = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/** Parses ORACLE_ALLOWED_HOSTS: `host` or `host:port` entries, comma-separated; a malformed entry stops the start. */
export function parseOracleHosts(text: string | undefined): string[] {
  if (!text?.trim()) return [];
  return text.split(',').map((entry) => {
    const host = entry.trim().toLowerCase();
    const match = HOST_ENTRY.exec(host);
    if (!match || (match[1] !== undefined && (Number(match[1]) < 1 || Number(match[1]) > 65535)))
      throw new Error(`ORACLE_ALLOWED_HOSTS entry "${entry.trim()}" must be host or host:port`);
    return host;
  });
}
