/**
 * Custody of the private keys the service holds. Keys leave this module only as signing
 * capabilities (CryptoKeyPair) or through exportPrivateKey, which the role-gated endpoint uses.
 */
import { randomBytes, type webcrypto } from 'node:crypto';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  createKeyPairFromPrivateKeyBytes,
  getAddressFromPublicKey,
  createKeyPairFromBytes,
  partiallySignTransaction,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit';
import { CustodyKey } from '../db/entities';
import { insertCustodyKey, insertGeneratedCustodyKey } from '../db/repositories/custody-keys.repository';
import type { Sealer } from './sealing';
import type { SecretStore } from './secret-store';
import type { ThresholdKeys, ThresholdKeySpec } from './threshold/threshold-keys';

/** DATABASE: sealed in custody_key. SECRETS: in the secret store; custody_key records only where it is. */
export type KeyLocation = 'DATABASE' | 'SECRETS';

/** The AAD that binds a DATABASE key's sealed secret to its record and field. */
export const custodyKeyAad = (address: string) => `custody_key:${address}:sealed_secret`;

export interface KeyStore {
  /** Generates a key for the organization; idempotent by requestKey (a retry gets the same address). */
  generate(em: EntityManager, organizationId: string, requestKey: string, location?: KeyLocation): Promise<string>;
  /** Stores a caller-provided key (32-byte seed or 64-byte secret+public); idempotent by address. */
  import(em: EntityManager, organizationId: string, secret: Uint8Array, location?: KeyLocation): Promise<string>;
  /** Signing capabilities for the addresses it holds; addresses it does not hold are absent from the map. */
  keyPairs(em: EntityManager, addresses: string[]): Promise<Map<string, CryptoKeyPair>>;
  /** The 32-byte seed of a held key, or undefined. */
  exportPrivateKey(em: EntityManager, address: string): Promise<Uint8Array | undefined>;
  /** The configured backend players of threshold keys. */
  dkgPlayers: string[];
  /** Generates a threshold (dkgKeys) key among backend players; idempotent by requestKey. */
  generateThreshold(em: EntityManager, organizationId: string, requestKey: string, spec: ThresholdKeySpec): Promise<string>;
  /** Whether the address is a threshold key (no player, and so no one, holds it whole). */
  isThresholdKey(em: EntityManager, address: string): Promise<boolean>;
  /** Adds the signatures of the keys it holds among `signers` (whole or threshold); `missing` are those it holds no key for. */
  signTransaction<T extends Transaction>(em: EntityManager, signers: string[], transaction: T): Promise<{ transaction: T; missing: string[] }>;
}

/** The address of a 32-byte ed25519 seed. */
export async function addressOfSeed(seed: Uint8Array): Promise<string> {
  const pair = await createKeyPairFromPrivateKeyBytes(seed, false);
  return getAddressFromPublicKey(pair.publicKey);
}

/** A key pair from the Solana CLI key file format (64 bytes: seed then public key). */
export async function keyPairFromSecretKey(bytes: Uint8Array): Promise<{ address: string; keyPair: CryptoKeyPair }> {
  const keyPair = await createKeyPairFromBytes(bytes, false);
  return { address: await getAddressFromPublicKey(keyPair.publicKey), keyPair };
}

/** Holds keys in either location and signs with both alike; `secrets` backs the SECRETS location, `threshold` the dkgKeys (FROST) accounts. */
export function createDatabaseKeyStore(
  sealer: Sealer,
  fixedKeys: Map<string, CryptoKeyPair> = new Map(),
  secrets?: SecretStore,
  threshold?: ThresholdKeys,
): KeyStore {
  async function store(
    em: EntityManager,
    organizationId: string,
    seed: Uint8Array,
    requestKey: string | null,
    location: KeyLocation = 'DATABASE',
  ): Promise<string> {
    const address = await addressOfSeed(seed);
    if (location === 'SECRETS') {
      if (!secrets) throw new Error('no secret store is configured');
      // The file first: a record never names a key the store does not have.
      await secrets.put(address, seed);
    }
    // Idempotent: a retry or a concurrent import of the same key stores it once.
    await insertCustodyKey(em, {
      address,
      organizationId,
      location,
      sealedSecret: location === 'DATABASE' ? sealer.seal(seed, custodyKeyAad(address)) : null,
      requestKey,
    });
    return address;
  }
  async function seedOf(row: CustodyKey): Promise<Uint8Array | undefined> {
    if (row.location === 'SECRETS') return secrets?.get(row.address);
    return row.sealedSecret ? new Uint8Array(sealer.unseal(row.sealedSecret, custodyKeyAad(row.address))) : undefined;
  }

  const store_: KeyStore = {
    dkgPlayers: threshold?.playerCodes ?? [],
    async generate(em, organizationId, requestKey, location) {
      if (location !== 'SECRETS') {
        // One statement (a write's hot path): insert, or answer the key a replay of the request stored first.
        const seed = randomBytes(32);
        const address = await addressOfSeed(seed);
        const sealedSecret = sealer.seal(seed, custodyKeyAad(address));
        const stored = await insertGeneratedCustodyKey(em, { address, organizationId, location: 'DATABASE', sealedSecret, requestKey });
        return stored ?? (await em.findOneOrFail(CustodyKey, { requestKey })).address;
      }
      // A SECRETS key's file is written before its row: look first, so a replay writes no second file.
      const existing = await em.findOne(CustodyKey, { requestKey });
      if (existing) return existing.address;
      await store(em, organizationId, randomBytes(32), requestKey, location);
      const stored = await em.findOneOrFail(CustodyKey, { requestKey });
      return stored.address;
    },
    async import(em, organizationId, secret, location) {
      if (secret.length !== 32 && secret.length !== 64) throw new Error('a private key is 32 bytes (seed) or 64 bytes (seed + public key)');
      const seed = secret.subarray(0, 32);
      if (secret.length === 64) {
        const { address } = await keyPairFromSecretKey(secret);
        if (address !== (await addressOfSeed(seed))) throw new Error('the public half of the private key does not match its seed');
      }
      return store(em, organizationId, seed, null, location);
    },
    async keyPairs(em, addresses) {
      const result = new Map<string, CryptoKeyPair>();
      const wanted = addresses.filter((a) => {
        const fixed = fixedKeys.get(a);
        if (fixed) result.set(a, fixed);
        return !fixed;
      });
      if (wanted.length === 0) return result;
      const rows = await em.find(CustodyKey, { address: { $in: wanted } });
      for (const row of rows) {
        const seed = await seedOf(row);
        if (seed) result.set(row.address, await createKeyPairFromPrivateKeyBytes(seed, false));
      }
      return result;
    },
    async exportPrivateKey(em, address) {
      const row = await em.findOne(CustodyKey, { address });
      return row ? seedOf(row) : undefined;
    },
    async generateThreshold(em, organizationId, requestKey, spec) {
      if (!threshold) throw new Error('no backend players are configured for dkgKeys');
      return threshold.generate(em, organizationId, requestKey, spec);
    },
    async isThresholdKey(em, address) {
      return threshold ? (await threshold.held(em, [address])).has(address) : false;
    },
    async signTransaction(em, signers, transaction) {
      const keyPairs = await store_.keyPairs(em, signers);
      const rest = signers.filter((s) => !keyPairs.has(s));
      const thresholdSignatures =
        threshold && rest.length ? await threshold.sign(em, rest, new Uint8Array(transaction.messageBytes)) : new Map<string, Uint8Array>();
      const signed = await partiallySignTransaction([...keyPairs.values()], transaction);
      const signatures = { ...signed.signatures };
      for (const [address, signature] of thresholdSignatures) signatures[address as keyof typeof signatures] = signature as SignatureBytes;
      return { transaction: { ...signed, signatures }, missing: rest.filter((s) => !thresholdSignatures.has(s)) };
    },
  };
  return store_;
}
