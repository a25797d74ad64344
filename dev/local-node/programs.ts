/**
 * Extra on-chain programs for the local node, beyond the ones LiteSVM carries (System, Token,
 * Token-2022, ATA, Memo, ...): e.g. a transfer hook for Token-2022 mints. Programs are deployed
 * at every start and are not part of the saved state, so a node restarted without them no
 * longer has them.
 *
 * `LOCAL_NODE_PROGRAMS=<programId>=<path/to/program.so>[,<programId>=<path>...]`
 */
import fs from 'node:fs';
import path from 'node:path';
import { decodeBase58Exact } from './base58';

export interface LocalNodeProgram {
  /** Base58 address the program is deployed at. */
  programId: string;
  /** The compiled program: an sBPF ELF, as `cargo build-sbf` writes it (or test/support/sbpf-program.ts). */
  elf: Uint8Array;
}

/** Parses `<programId>=<path>[,...]` and reads each file (relative paths from `baseDir`). */
export function programsFromSpec(spec: string | undefined, baseDir = process.cwd()): LocalNodeProgram[] {
  if (!spec?.trim()) return [];
  return spec
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const separator = entry.indexOf('=');
      const programId = entry.slice(0, separator).trim();
      const file = entry.slice(separator + 1).trim();
      if (separator <= 0 || !file) throw new Error(`LOCAL_NODE_PROGRAMS: "${entry}" is not <programId>=<path.so>`);
      programKey(programId);
      return { programId, elf: new Uint8Array(fs.readFileSync(path.resolve(baseDir, file))) };
    });
}

export function programKey(programId: string): Uint8Array {
  const key = decodeBase58Exact(programId, 32);
  if (!key) throw new Error(`local node program: "${programId}" is not a base58 address`);
  return key;
}
