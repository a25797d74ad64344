/**
 * The shared wiring of the API and worker processes: database, networks, custody.
 * The only place (with api.ts, worker.ts and dev/launcher.ts) where dependencies are built.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, type Config } from '../config/config';
import { createLogger, type Logger } from '../observability/logger';
import { createOrm, migrate, type Orm } from '../db/orm';
import { createSealer, generateKeyEncryptionKey, type Sealer } from '../custody/sealing';
import { createKeystoreDirectory, type SecretStore } from '../custody/secret-store';
import { createDatabaseKeyStore, keyPairFromSecretKey, type KeyStore } from '../custody/key-store';
import { createDirectoryShareStore, type ShareStore } from '../custody/threshold/share-store';
import { createThresholdKeys } from '../custody/threshold/threshold-keys';
import { createJsonRpcNetwork } from '../network/json-rpc-network';
import { createNetworks, type Networks } from '../network/svm-network';
import type { Tracing } from '../observability/tracing';

export type Log = (message: string) => void;

export interface Runtime {
  orm: Orm;
  networks: Networks;
  sealer: Sealer;
  /** The SECRETS location's store (the KEK rotation re-wraps it). */
  secrets: SecretStore;
  keyStore: KeyStore;
  feePayerAddress: string;
  close(): Promise<void>;
}

/** Reads a secret file, creating it with `make()` the first time (development defaults under .data/). */
function fileSecret(file: string, make: () => string, log: Log, what: string): string {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8').trim();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const value = make();
  fs.writeFileSync(file, value + '\n', { mode: 0o600 });
  log(`created ${what} at ${file} (development default; configure it in production)`);
  return value;
}

export const secretsDirectory = (config: Config) => config.secretsDirectory ?? path.join(config.dataDir, 'secrets');

/** Every configured backend player's share store, sealing with `sealer`. */
export function thresholdShareStores(config: Config, sealer: Sealer): ShareStore[] {
  const playersDir = config.dkgPlayersDir ?? path.join(config.dataDir, 'dkg-players');
  return config.dkgPlayers.map((code) => createDirectoryShareStore(path.join(playersDir, code), code, sealer));
}

export function keyEncryptionKey(config: Config, log: Log): string {
  return config.keyEncryptionKey ?? fileSecret(path.join(config.dataDir, 'key-encryption-key'), generateKeyEncryptionKey, log, 'a key-encryption key');
}

/** `tracing` (when on): the networks' JSON-RPC calls get spans. */
export async function openRuntime(
  config: Config & { databaseUrl: string },
  log: Log,
  options: { migrate?: boolean; tracing?: Tracing } = {},
): Promise<Runtime> {
  const orm = await createOrm({ databaseUrl: config.databaseUrl, poolSize: config.databasePoolSize });
  if (options.migrate) {
    const applied = await migrate(orm);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
  }
  const sealer = createSealer(keyEncryptionKey(config, log), config.previousKeyEncryptionKeys);
  const secrets = createKeystoreDirectory(secretsDirectory(config), sealer);
  const feePayerBytes = JSON.parse(
    fileSecret(
      config.feePayerKeyFile,
      () => JSON.stringify([...randomBytes(32), ...new Uint8Array(32)]),
      () => {},
      'fee payer',
    ),
  ) as number[];
  const feePayer = await loadFeePayer(config.feePayerKeyFile, feePayerBytes, log);
  const thresholdKeys = createThresholdKeys(thresholdShareStores(config, sealer));
  const keyStore = createDatabaseKeyStore(sealer, new Map([[feePayer.address, feePayer.keyPair]]), secrets, thresholdKeys);
  const networks = createNetworks(
    config.clusters.map((c) => createJsonRpcNetwork(c.name, c.rpcUrl, options.tracing?.tracer)),
    config.defaultCluster,
  );
  return { orm, networks, sealer, keyStore, secrets, feePayerAddress: feePayer.address, close: () => orm.close() };
}

/** The global fee payer's key file holds 64 bytes (Solana CLI format); a new file is completed with its public half. */
async function loadFeePayer(file: string, bytes: number[], log: Log) {
  if (bytes.length === 64 && bytes.slice(32).every((b) => b === 0)) {
    const { createKeyPairFromPrivateKeyBytes, getAddressFromPublicKey, getAddressEncoder } = await import('@solana/kit');
    const pair = await createKeyPairFromPrivateKeyBytes(new Uint8Array(bytes.slice(0, 32)), false);
    const publicKey = getAddressEncoder().encode(await getAddressFromPublicKey(pair.publicKey));
    const full = [...bytes.slice(0, 32), ...publicKey];
    fs.writeFileSync(file, JSON.stringify(full) + '\n', { mode: 0o600 });
    log(`created the global fee payer key at ${file}`);
    return keyPairFromSecretKey(new Uint8Array(full));
  }
  return keyPairFromSecretKey(new Uint8Array(bytes));
}

/** On clusters that allow airdrops, tops the global fee payer up so writes can pay fees. Best effort. */
export async function fundFeePayer(runtime: Runtime, config: Config, log: Log): Promise<void> {
  for (const cluster of config.clusters.filter((c) => c.allowsAirdrop)) {
    const network = runtime.networks.get(cluster.name)!;
    try {
      const balance = await network.getBalance(runtime.feePayerAddress);
      const target = cluster.name === 'LOCAL' ? 1_000_000_000_000n : 2_000_000_000n;
      if (balance >= target / 10n) continue;
      await network.requestAirdrop(runtime.feePayerAddress, target - balance);
      for (let i = 0; i < 50 && (await network.getBalance(runtime.feePayerAddress)) < target / 10n; i++) await new Promise((r) => setTimeout(r, 200));
      log(`funded the global fee payer ${runtime.feePayerAddress} on ${cluster.name}`);
    } catch (error) {
      log(`could not fund the global fee payer on ${cluster.name}: ${(error as Error).message}`);
    }
  }
}

export const forkEm = (orm: Orm) => orm.em.fork();

/** Starts a process (`api`, `worker`): its config and logger, then `main`; a config fault or a failed `main` is logged and exits 1. */
export function runMain(name: string, main: (config: Config, logger: Logger) => Promise<void>): void {
  try {
    const config = loadConfig();
    const logger = createLogger({ name, level: config.logLevel, format: config.logFormat });
    main(config, logger).catch((error) => {
      logger.fatal({ err: error }, error.message);
      process.exit(1);
    });
  } catch (error) {
    console.error(`[${name}] ${(error as Error).message}`);
    process.exit(1);
  }
}
