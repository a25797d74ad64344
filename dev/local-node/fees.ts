/**
 * The fee a cluster charges for a message. LiteSVM charges it but does not report it, so
 * the node recomputes it: 5000 lamports per signature (including precompile signatures)
 * plus ceil(compute-unit limit × price / 1e6).
 */
import { decodeBase58 } from './base58';
import { keyId } from './key-id';
import type { ParsedMessage } from './wire-transaction';

export const LAMPORTS_PER_SIGNATURE = 5000n;
const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n;
// Default limit per instruction when none is set (measured against LiteSVM 1.5: builtins reserve 3000).
const BUILTIN_INSTRUCTION_UNITS = 3_000n;
const OTHER_INSTRUCTION_UNITS = 200_000n;

const id = (address: string) => keyId(decodeBase58(address)!);
const COMPUTE_BUDGET = id('ComputeBudget111111111111111111111111111111');
const ED25519 = id('Ed25519SigVerify111111111111111111111111111');
const SECP256K1 = id('KeccakSecp256k11111111111111111111111111111');
const SECP256R1 = id('Secp256r1SigVerify1111111111111111111111111');
const BUILTINS = new Set([
  id('11111111111111111111111111111111'),
  COMPUTE_BUDGET,
  id('BPFLoader1111111111111111111111111111111111'),
  id('BPFLoader2111111111111111111111111111111111'),
  id('BPFLoaderUpgradeab1e11111111111111111111111'),
  ED25519,
  SECP256K1,
]);
const PRECOMPILES = new Set([ED25519, SECP256K1, SECP256R1]);

function readUint(data: Uint8Array, offset: number, bytes: number): bigint {
  let value = 0n;
  for (let i = bytes - 1; i >= 0; i--) value = (value << 8n) | BigInt(data[offset + i]);
  return value;
}

/** The message's compute budget: its SetComputeUnitLimit (or null) and SetComputeUnitPrice (0 without one), in micro-lamports. */
export function computeBudgetOf(message: ParsedMessage): { unitLimit: bigint | null; unitPrice: bigint } {
  let unitLimit: bigint | null = null;
  let unitPrice = 0n;
  for (const instruction of message.instructions) {
    if (keyId(message.staticKeys[instruction.programIdIndex]) !== COMPUTE_BUDGET) continue;
    const data = instruction.data;
    if (data[0] === 2 && data.length >= 5) unitLimit = readUint(data, 1, 4);
    if (data[0] === 3 && data.length >= 9) unitPrice = readUint(data, 1, 8);
  }
  return { unitLimit, unitPrice };
}

export function feeForMessage(message: ParsedMessage): bigint {
  let signatures = BigInt(message.numRequiredSignatures);
  let defaultLimit = 0n;
  for (const instruction of message.instructions) {
    const program = keyId(message.staticKeys[instruction.programIdIndex]);
    const data = instruction.data;
    if (PRECOMPILES.has(program) && data.length > 0) signatures += BigInt(data[0]);
    defaultLimit += BUILTINS.has(program) ? BUILTIN_INSTRUCTION_UNITS : OTHER_INSTRUCTION_UNITS;
  }
  const { unitLimit, unitPrice } = computeBudgetOf(message);
  const limit = unitLimit ?? defaultLimit;
  const cappedLimit = limit < MAX_COMPUTE_UNIT_LIMIT ? limit : MAX_COMPUTE_UNIT_LIMIT;
  const priorityFee = (cappedLimit * unitPrice + 999_999n) / 1_000_000n;
  return signatures * LAMPORTS_PER_SIGNATURE + priorityFee;
}
