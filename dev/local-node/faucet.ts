/**
 * requestAirdrop as a real signed system transfer from the node's own faucet key, so an
 * airdrop has a signature, a status and a getTransaction record like any other transaction.
 */
import { createPrivateKey, createPublicKey, randomBytes, sign, type KeyObject } from 'node:crypto';

// PKCS#8 wrapping of a raw 32-byte Ed25519 seed.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SYSTEM_PROGRAM = new Uint8Array(32);
const COMPUTE_BUDGET_PROGRAM = new Uint8Array(Buffer.from('0306466fe5211732ffecadba72c39be7bc8ce5bbc5f7126b2c439b3a40000000', 'hex'));

function shortVec(length: number): number[] {
  const out: number[] = [];
  let rest = length;
  while (rest >= 0x80) {
    out.push((rest & 0x7f) | 0x80);
    rest >>= 7;
  }
  out.push(rest);
  return out;
}

export class Faucet {
  readonly address: Uint8Array;
  private readonly privateKey: KeyObject;

  constructor(seed: Uint8Array) {
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    this.address = new Uint8Array(spki.subarray(spki.length - 32));
  }

  static newSeed(): Uint8Array {
    return new Uint8Array(randomBytes(32));
  }

  /**
   * A signed legacy transfer. `variant` > 0 adds a compute-unit-limit instruction so that two
   * identical airdrops in one block get distinct signatures instead of AlreadyProcessed.
   */
  transfer(recipient: Uint8Array, lamports: bigint, blockhash: Uint8Array, variant: number): Uint8Array {
    const keys = variant > 0 ? [this.address, recipient, SYSTEM_PROGRAM, COMPUTE_BUDGET_PROGRAM] : [this.address, recipient, SYSTEM_PROGRAM];
    const transferData = Buffer.alloc(12);
    transferData.writeUInt32LE(2, 0);
    transferData.writeBigUInt64LE(lamports, 4);
    const instructions: number[] = [2, ...shortVec(2), 0, 1, ...shortVec(12), ...transferData];
    if (variant > 0) {
      const limit = Buffer.alloc(5);
      limit[0] = 2;
      limit.writeUInt32LE(1_000 + variant, 1);
      instructions.push(3, ...shortVec(0), ...shortVec(5), ...limit);
    }
    const message = Buffer.from([
      1,
      0,
      keys.length - 2, // one signer; every program key is read-only
      ...shortVec(keys.length),
      ...keys.flatMap((key) => [...key]),
      ...blockhash,
      ...shortVec(variant > 0 ? 2 : 1),
      ...instructions,
    ]);
    const signature = sign(null, message, this.privateKey);
    return new Uint8Array(Buffer.concat([Buffer.from(shortVec(1)), signature, message]));
  }
}
