/**
 * The release of a program deployed on the network, read from the `security.txt` section its
 * build embeds (solana-security-txt: `source_release`, e.g. `program@v11.0.0`). Token-2022 releases
 * carry it; it says which instructions the cluster's program knows before a transaction finds out
 * after paying fees.
 */
import { getAddressDecoder } from '@solana/kit';
import type { SvmNetwork } from './svm-network';

const UPGRADEABLE_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const BEGIN = Buffer.from('=======BEGIN SECURITY.TXT V1=======\0');
const END = Buffer.from('=======END SECURITY.TXT V1=======');

/** `source_release` of a security.txt inside an ELF, or undefined. */
export function securityTxtRelease(elf: Uint8Array): string | undefined {
  const bytes = Buffer.from(elf.buffer, elf.byteOffset, elf.byteLength);
  const start = bytes.indexOf(BEGIN);
  if (start < 0) return undefined;
  const end = bytes.indexOf(END, start);
  if (end < 0) return undefined;
  const fields = bytes
    .subarray(start + BEGIN.length, end)
    .toString('utf8')
    .split('\0');
  const at = fields.indexOf('source_release');
  return at >= 0 && at % 2 === 0 ? fields[at + 1] : undefined;
}

const cache = new WeakMap<SvmNetwork, Map<string, Promise<string | undefined>>>();

/** The program's `source_release` on this network (an upgradeable program's ELF is in its program data account), cached per process. */
export function programRelease(network: SvmNetwork, program: string): Promise<string | undefined> {
  let byProgram = cache.get(network);
  if (!byProgram) cache.set(network, (byProgram = new Map()));
  let release = byProgram.get(program);
  if (!release) {
    release = readRelease(network, program);
    // A failed read (an outage) is not remembered: the next write asks again.
    release.catch(() => byProgram.delete(program));
    byProgram.set(program, release);
  }
  return release;
}

async function readRelease(network: SvmNetwork, program: string): Promise<string | undefined> {
  const account = await network.getAccount(program);
  if (!account) return undefined;
  if (account.owner !== UPGRADEABLE_LOADER) return securityTxtRelease(account.data);
  // UpgradeableLoaderState::Program: a u32 tag (2), then the program data address.
  if (account.data.length < 36) return undefined;
  const programData = await network.getAccount(getAddressDecoder().decode(account.data.subarray(4, 36)));
  // UpgradeableLoaderState::ProgramData: a u32 tag, the slot (u64) and an optional authority (1 + 32 bytes), then the ELF.
  return programData ? securityTxtRelease(programData.data.subarray(45)) : undefined;
}
