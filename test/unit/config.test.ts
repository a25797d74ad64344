/** Configuration from the environment: defaults, and every invalid variable refused by name at once. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config/config';

it('starts from documented defaults', () => {
  const config = loadConfig({});
  expect(config).toMatchObject({
    host: '127.0.0.1',
    port: 8080,
    databasePoolSize: 10,
    rateLimit: { perSecond: 100, burst: 200 },
    defaultCommitment: 'confirmed',
    logLevel: 'info',
    logFormat: 'json',
    shutdown: { drainDelayMs: 0, graceMs: 30_000 },
  });
  expect(config.temporal).toMatchObject({ namespace: 'default', taskQueue: 'ledger-writes', apiHostsWorker: true, writeTaskTimeoutSeconds: 10 });
  expect(config.databaseUrl).toBeUndefined();
});

it('reads what is given', () => {
  const config = loadConfig({
    PORT: '9000',
    API_HOSTS_WORKER: 'false',
    SVM_CLUSTERS: 'devnet=https://api.devnet.solana.com',
    DKG_PLAYERS: 'a, b',
    LOG_LEVEL: 'debug',
    WRITE_WAIT_SECONDS: '5',
  });
  expect(config).toMatchObject({ port: 9000, dkgPlayers: ['a', 'b'], logLevel: 'debug', writeWaitMs: 5000 });
  expect(config.temporal.apiHostsWorker).toBe(false);
  expect(config.clusters).toEqual([{ name: 'DEVNET', rpcUrl: 'https://api.devnet.solana.com', allowsAirdrop: true }]);
});

it.each([
  ['PORT', 'abc'],
  ['PORT', '70000'],
  ['DATABASE_POOL_SIZE', '1.5'],
  ['RATE_LIMIT_BURST', '0'],
  ['RATE_LIMIT_PER_SECOND', '1.5'],
  ['RATE_LIMIT_STORE', 'redis'],
  ['RATE_LIMIT_UNKNOWN_KEYS', '0'],
  ['RATE_LIMIT_UNKNOWN_KEYS_SECONDS', 'a minute'],
  ['TRUST_PROXY_HOPS', '-1'],
  ['TRUST_PROXY_HOPS', '11'],
  ['LOG_LEVEL', 'verbose'],
  ['DEFAULT_COMMITMENT', 'final'],
  ['API_HOSTS_WORKER', 'maybe'],
  ['SVM_CLUSTERS', 'devnet'],
  ['ORACLE_ALLOWED_HOSTS', 'bad host'],
  ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
  ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'ftp://collector/v1/traces'],
])('refuses %s=%s naming the variable', (name, value) => {
  expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`invalid configuration: .*\\b${name}: `));
});

it('names every invalid variable in one error', () => {
  expect(() => loadConfig({ PORT: 'abc', LOG_LEVEL: 'loud' })).toThrow(/PORT: .*; LOG_LEVEL: |LOG_LEVEL: .*; PORT: /);
});

describe('a secured Temporal cluster', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'config-tls-'));
  const file = (name: string, text: string) => {
    fs.writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('connects in plain text unless told otherwise', () => {
    expect(loadConfig({}).temporal.connection).toEqual({});
  });

  it('reads a client certificate pair, a private CA and a server name for mutual TLS', () => {
    const env = {
      TEMPORAL_TLS_CERT_FILE: file('client.pem', 'CERT'),
      TEMPORAL_TLS_KEY_FILE: file('client.key', 'KEY'),
      TEMPORAL_TLS_CA_FILE: file('ca.pem', 'CA'),
      TEMPORAL_TLS_SERVER_NAME: 'temporal.internal',
    };
    const { tls } = loadConfig(env).temporal.connection!;
    expect(tls!.clientCertPair!.crt.toString()).toBe('CERT');
    expect(tls!.clientCertPair!.key.toString()).toBe('KEY');
    expect(tls!.serverRootCACertificate!.toString()).toBe('CA');
    expect(tls!.serverNameOverride).toBe('temporal.internal');
  });

  it('turns TLS on with an API key (Temporal Cloud)', () => {
    expect(loadConfig({ TEMPORAL_API_KEY: 'secret' }).temporal.connection).toEqual({ tls: {}, apiKey: 'secret' });
    expect(loadConfig({ TEMPORAL_TLS: 'true' }).temporal.connection).toEqual({ tls: {} });
  });

  it('refuses half a certificate pair and an unreadable file, naming the variable', () => {
    expect(() => loadConfig({ TEMPORAL_TLS_CERT_FILE: file('only.pem', 'CERT') })).toThrow(/TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together/);
    expect(() => loadConfig({ TEMPORAL_TLS_CA_FILE: path.join(dir, 'missing.pem') })).toThrow(/TEMPORAL_TLS_CA_FILE: cannot read .*ENOENT/);
  });
});

describe('rate limits', () => {
  it('default to 100/s with bursts of 200 per key, 20 unknown-key requests a minute per address, shared through PostgreSQL, no trusted proxy', () => {
    const config = loadConfig({});
    expect(config.rateLimit).toEqual({ perSecond: 100, burst: 200, store: 'postgresql', unknownKeys: { points: 20, seconds: 60 } });
    expect(config.trustProxyHops).toBe(0);
  });

  it('reads the store, the unknown-key limit and the trusted proxies', () => {
    const config = loadConfig({ RATE_LIMIT_STORE: 'memory', RATE_LIMIT_UNKNOWN_KEYS: '5', RATE_LIMIT_UNKNOWN_KEYS_SECONDS: '10', TRUST_PROXY_HOPS: '2' });
    expect(config.rateLimit).toMatchObject({ store: 'memory', unknownKeys: { points: 5, seconds: 10 } });
    expect(config.trustProxyHops).toBe(2);
  });
});

describe('traces', () => {
  it('are off unless an OTLP endpoint is set', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(loadConfig({ OTEL_SERVICE_NAME: 'ledger-eu' }).tracing).toBeUndefined();
  });

  it("go to the endpoint's /v1/traces, or the traces endpoint as given, under OTEL_SERVICE_NAME", () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' }).tracing).toEqual({
      serviceName: 'ledger-asset-service',
      tracesUrl: 'http://collector:4318/v1/traces',
    });
    expect(
      loadConfig({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://traces.example/otlp',
        OTEL_SERVICE_NAME: 'ledger-eu',
      }).tracing,
    ).toEqual({ serviceName: 'ledger-eu', tracesUrl: 'https://traces.example/otlp' });
  });

  it('stay off with OTEL_SDK_DISABLED=true', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }).tracing).toBeUndefined();
  });
});

describe('reconciliation', () => {
  it('runs every 10 minutes unless RECONCILE_INTERVAL_SECONDS says otherwise (0 pauses it)', () => {
    expect(loadConfig({}).reconcileIntervalSeconds).toBe(600);
    expect(loadConfig({ RECONCILE_INTERVAL_SECONDS: '120' }).reconcileIntervalSeconds).toBe(120);
    expect(loadConfig({ RECONCILE_INTERVAL_SECONDS: '0' }).reconcileIntervalSeconds).toBe(0);
  });

  it('refuses an interval that is not whole seconds from 0 to a day, naming the variable', () => {
    for (const value of ['-1', '1.5', 'ten', '86401'])
      expect(() => loadConfig({ RECONCILE_INTERVAL_SECONDS: value })).toThrow(
        /invalid configuration: RECONCILE_INTERVAL_SECONDS: must be a whole number from 0 to 86400/,
      );
  });
});
