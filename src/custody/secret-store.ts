/**
 * The SECRETS location: private keys kept outside PostgreSQL behind a port, so a database dump or
 * replica never holds them, not even sealed. The embedded default is an encrypted keystore
 * directory: one file per key, sealed with the KEK keyring and bound (AAD) to its address, written
 * atomically (temporary file, fsync, rename) with mode 0600. A Vault/OpenBao KV adapter would
 * implement the same port.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from './atomic-file';
import type { Sealer } from './sealing';

export interface SecretStore {
  /** Stores the 32-byte seed of `address`; storing the same address again keeps the first. */
  put(address: string, seed: Uint8Array): Promise<void>;
  get(address: string): Promise<Uint8Array | undefined>;
  /** Re-seals every stored key under the sealer's current KEK; returns how many it re-wrapped. */
  rewrapAll(sealer: Sealer): Promise<number>;
}

const aadOf = (address: string) => `secrets:${address}:seed`;
// Addresses are base58: this also keeps a crafted name from leaving the directory.
const ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

export function createKeystoreDirectory(directory: string, sealer: Sealer): SecretStore {
  const fileOf = (address: string) => {
    if (!ADDRESS.test(address)) throw new Error('not an address');
    return path.join(directory, `${address}.key`);
  };
  return {
    async put(address, seed) {
      const file = fileOf(address);
      if (fs.existsSync(file)) return;
      writeFileAtomically(file, sealer.seal(seed, aadOf(address)));
    },
    async get(address) {
      const file = fileOf(address);
      if (!fs.existsSync(file)) return undefined;
      return new Uint8Array(sealer.unseal(fs.readFileSync(file, 'utf8').trim(), aadOf(address)));
    },
    async rewrapAll(next) {
      if (!fs.existsSync(directory)) return 0;
      let count = 0;
      for (const name of fs.readdirSync(directory)) {
        if (!name.endsWith('.key')) continue;
        const address = name.slice(0, -'.key'.length);
        const file = fileOf(address);
        const sealed = fs.readFileSync(file, 'utf8').trim();
        if (next.keyIdOf(sealed) === next.currentKeyId) continue;
        writeFileAtomically(file, next.rewrap(sealed, aadOf(address)));
        count++;
      }
      return count;
    },
  };
}
