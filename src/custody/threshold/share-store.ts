/**
 * One backend player's share store: its own directory, one sealed file per key. A share leaves it
 * only to that player's signing step (see threshold-keys.ts), never to a response or a log.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomically } from '../atomic-file';
import type { Sealer } from '../sealing';

export interface StoredShare {
  identifier: string;
  signingShare: Uint8Array;
}

export interface ShareStore {
  playerCode: string;
  save(address: string, share: StoredShare): void;
  load(address: string): StoredShare | undefined;
  /** Re-seals every share under `next`'s current KEK, one file at a time; returns how many it re-wrapped. */
  rewrapAll(next: Sealer): number;
}

type ShareFile = { identifier: string; sealedShare: string };

export function createDirectoryShareStore(dir: string, playerCode: string, sealer: Sealer): ShareStore {
  const file = (address: string) => path.join(dir, `${address}.share`);
  const read = (name: string) => JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as ShareFile;
  return {
    playerCode,
    save(address, share) {
      writeFileAtomically(file(address), JSON.stringify({ identifier: share.identifier, sealedShare: sealer.seal(share.signingShare) } satisfies ShareFile));
    },
    load(address) {
      if (!fs.existsSync(file(address))) return undefined;
      const { identifier, sealedShare } = read(`${address}.share`);
      return { identifier, signingShare: new Uint8Array(sealer.unseal(sealedShare)) };
    },
    rewrapAll(next) {
      if (!fs.existsSync(dir)) return 0;
      let count = 0;
      for (const name of fs.readdirSync(dir)) {
        if (!name.endsWith('.share')) continue;
        const stored = read(name);
        if (next.keyIdOf(stored.sealedShare) === next.currentKeyId) continue;
        // Each file is replaced whole: a rotation stopped here leaves every share readable by old or new KEK.
        writeFileAtomically(
          path.join(dir, name),
          JSON.stringify({ identifier: stored.identifier, sealedShare: next.rewrap(stored.sealedShare) } satisfies ShareFile),
        );
        count++;
      }
      return count;
    },
  };
}
