/**
 * One backend player's share store: its own directory, one sealed file per key. A share leaves it
 * only to that player's signing step (see threshold-keys.ts), never to a response or a log.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Sealer } from '../sealing';

export interface StoredShare {
  identifier: string;
  signingShare: Uint8Array;
}

export interface ShareStore {
  playerCode: string;
  save(address: string, share: StoredShare): void;
  load(address: string): StoredShare | undefined;
}

export function createDirectoryShareStore(dir: string, playerCode: string, sealer: Sealer): ShareStore {
  const file = (address: string) => path.join(dir, `${address}.share`);
  return {
    playerCode,
    save(address, share) {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const body = JSON.stringify({ identifier: share.identifier, sealedShare: sealer.seal(share.signingShare) });
      // Written whole then renamed: a crash never leaves half a share.
      const tmp = `${file(address)}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, body, { mode: 0o600 });
      fs.renameSync(tmp, file(address));
    },
    load(address) {
      if (!fs.existsSync(file(address))) return undefined;
      const { identifier, sealedShare } = JSON.parse(fs.readFileSync(file(address), 'utf8')) as { identifier: string; sealedShare: string };
      return { identifier, signingShare: new Uint8Array(sealer.unseal(sealedShare)) };
    },
  };
}
