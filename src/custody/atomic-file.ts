/**
 * Writes a secret file whole or not at all: a temporary file (mode 0600, fsynced) renamed over the
 * target, so a crash leaves either the old content or the new, never half of one. The keystore
 * directory and the players' share stores use it, and KEK rotation relies on it to be restartable.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export function writeFileAtomically(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, 'wx', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temporary, file);
}
