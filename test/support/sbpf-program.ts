/**
 * The smallest on-chain program the SVM loader accepts, assembled by hand: no Rust/SBF toolchain
 * is needed. It ignores its accounts and instruction data and returns a fixed code, which makes it
 * a transfer hook that approves every transfer (code 0) or refuses every one (any other code;
 * the runtime reports a code below 2^32 as `Custom(code)`).
 *
 * The text section is two sBPF instructions (8 bytes each, little-endian):
 *   b7 00 00 00 <imm32>   mov64 r0, imm    ; r0 is the program's return value
 *   95 00 00 00 00000000  exit
 *
 * The ELF is what the loader's SBPFv0 ("lenient") parser requires (solana-sbpf `elf.rs`
 * `load_with_lenient_parser` + `validate`, `elf_parser::Elf64::parse`): a 64-bit little-endian
 * ET_DYN for EM_BPF with e_flags 0; a section header table whose first entry is SHT_NULL, sections
 * in ascending file order that overlap neither the headers nor each other; exactly one `.text`
 * whose address equals its file offset; the entry point (e_entry) inside `.text`; a section name
 * string table. No program headers, dynamic section, relocations or symbols are needed: the
 * loader registers the entry point as `entrypoint` itself.
 *
 * Layout (296 bytes): ELF header 0..64, .text 64..80, .shstrtab 80..97, padding to 104,
 * section headers 104..296 (null, .text, .shstrtab).
 *
 * `test/fixtures/programs/noop.so` is `returnCodeProgramElf(0)`; regenerate it with
 * `npx tsx test/support/sbpf-program.ts test/fixtures/programs/noop.so`.
 */
import fs from 'node:fs';

const ELF_HEADER_SIZE = 64;
const PROGRAM_HEADER_SIZE = 56;
const SECTION_HEADER_SIZE = 64;
const ET_DYN = 3;
const EM_BPF = 247;
const SHT_PROGBITS = 1;
const SHT_STRTAB = 3;
const SHF_ALLOC_EXECINSTR = 0x2n | 0x4n;

export function returnCodeProgramElf(code = 0): Uint8Array {
  if (!Number.isInteger(code) || code < 0 || code > 0x7fffffff) throw new RangeError('code must be a 31-bit non-negative integer');
  const text = Buffer.alloc(16);
  text[0] = 0xb7; // mov64 dst=r0, imm
  text.writeInt32LE(code, 4);
  text[8] = 0x95; // exit
  const names = Buffer.from('\0.text\0.shstrtab\0', 'latin1');
  const textOffset = ELF_HEADER_SIZE;
  const namesOffset = textOffset + text.length;
  const sectionHeadersOffset = Math.ceil((namesOffset + names.length) / 8) * 8;
  const elf = Buffer.alloc(sectionHeadersOffset + 3 * SECTION_HEADER_SIZE);

  // e_ident: magic, ELFCLASS64, ELFDATA2LSB, EV_CURRENT, ELFOSABI_NONE, then zero padding.
  elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], 0);
  elf.writeUInt16LE(ET_DYN, 16); // e_type
  elf.writeUInt16LE(EM_BPF, 18); // e_machine
  elf.writeUInt32LE(1, 20); // e_version
  elf.writeBigUInt64LE(BigInt(textOffset), 24); // e_entry: the first instruction of .text
  elf.writeBigUInt64LE(BigInt(ELF_HEADER_SIZE), 32); // e_phoff (no program headers)
  elf.writeBigUInt64LE(BigInt(sectionHeadersOffset), 40); // e_shoff
  elf.writeUInt32LE(0, 48); // e_flags: SBPF v0
  elf.writeUInt16LE(ELF_HEADER_SIZE, 52); // e_ehsize
  elf.writeUInt16LE(PROGRAM_HEADER_SIZE, 54); // e_phentsize
  elf.writeUInt16LE(0, 56); // e_phnum
  elf.writeUInt16LE(SECTION_HEADER_SIZE, 58); // e_shentsize
  elf.writeUInt16LE(3, 60); // e_shnum
  elf.writeUInt16LE(2, 62); // e_shstrndx
  elf.set(text, textOffset);
  elf.set(names, namesOffset);

  const section = (index: number, name: number, type: number, flags: bigint, address: number, offset: number, size: number, align: number) => {
    const at = sectionHeadersOffset + index * SECTION_HEADER_SIZE;
    elf.writeUInt32LE(name, at); // sh_name: offset in .shstrtab
    elf.writeUInt32LE(type, at + 4);
    elf.writeBigUInt64LE(flags, at + 8);
    elf.writeBigUInt64LE(BigInt(address), at + 16);
    elf.writeBigUInt64LE(BigInt(offset), at + 24);
    elf.writeBigUInt64LE(BigInt(size), at + 32);
    elf.writeBigUInt64LE(BigInt(align), at + 48);
  };
  // Index 0 stays all zeros: SHT_NULL.
  section(1, names.indexOf('.text'), SHT_PROGBITS, SHF_ALLOC_EXECINSTR, textOffset, textOffset, text.length, 8);
  section(2, names.indexOf('.shstrtab'), SHT_STRTAB, 0n, 0, namesOffset, names.length, 1);
  return new Uint8Array(elf);
}

if (require.main === module) {
  const [out, code] = process.argv.slice(2);
  if (!out) throw new Error('usage: npx tsx test/support/sbpf-program.ts <out.so> [return code]');
  fs.writeFileSync(out, returnCodeProgramElf(Number(code ?? 0)));
}
