/**
 * The keys of a Confidential Mint and Burn mint's encrypted supply, derived from its
 * `confidentialMintBurnAuthority`'s ed25519 key the way solana-zk-sdk derives them from a signer
 * (`new_from_signer`): the authority signs `"ElGamalSecretKey" ‖ mint` and `"AeKey" ‖ mint`; the
 * ElGamal secret is the SHA3-512 of the first signature reduced modulo the group order, the AES key
 * the first 16 bytes of the SHA3-512 of the second. Ed25519 signatures are deterministic, so whoever
 * holds the authority's key (the service, or its owner after exporting it) derives the same keys
 * again: nothing new is stored, and only public values (the ElGamal public key and the encrypted
 * zero supply) leave this module.
 *
 * The arithmetic and the encryption are solana-zk-sdk's own, through its WASM build
 * (`@solana/zk-sdk` 0.4.1, installed as `solana-zk-sdk`: @solana-program/token-2022 declares an
 * optional peer ^0.5.1, which the registry does not serve, and 0.4.1 under its own name avoids the
 * conflict). 0.4.1 takes a secret key as bytes but not a signature, so the two hashes above are the
 * only lines written here.
 */
import { createHash } from 'node:crypto';
import { getAddressDecoder, getAddressEncoder } from '@solana/kit';
import type { ConfidentialSupplyKeys } from '../domain/token-extensions';

type ZkSdk = typeof import('solana-zk-sdk/node');
let zk: Promise<ZkSdk> | undefined;
/** The WASM module is loaded at the first confidential mint, not at every start (it takes ~0.1–0.5 s). */
const zkSdk = (): Promise<ZkSdk> => (zk ??= import('solana-zk-sdk/node'));

/** The order of the Ristretto group (curve25519's prime subgroup). */
const GROUP_ORDER = 2n ** 252n + 27742317777372353535851937790883648493n;

const sha3_512 = (bytes: Uint8Array) => new Uint8Array(createHash('sha3-512').update(bytes).digest());
const concat = (label: string, seed: Uint8Array) => new Uint8Array([...new TextEncoder().encode(label), ...seed]);

/** A 64-byte little-endian number reduced modulo the group order, as 32 little-endian bytes (curve25519-dalek's `from_bytes_mod_order_wide`). */
function wideToScalar(wide: Uint8Array): Uint8Array {
  let n = 0n;
  for (let i = wide.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(wide[i]!);
  n %= GROUP_ORDER;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++, n >>= 8n) out[i] = Number(n & 0xffn);
  return out;
}

/** What derives the keys: an ed25519 signature of a message by the authority's key. */
export type SignMessage = (message: Uint8Array) => Promise<Uint8Array>;

/** Both secret keys of a mint's supply: for the authority's owner, and for the tests that read the supply back. */
export async function supplySecretKeys(sign: SignMessage, mint: string) {
  const seed = getAddressEncoder().encode(mint as Parameters<ReturnType<typeof getAddressEncoder>['encode']>[0]) as Uint8Array;
  const sdk = await zkSdk();
  const elgamalSecret = sdk.ElGamalSecretKey.fromBytes(wideToScalar(sha3_512(await sign(concat('ElGamalSecretKey', seed)))));
  const aeKey = sdk.AeKey.fromBytes(sha3_512(await sign(concat('AeKey', seed))).subarray(0, 16));
  return { elgamalSecret, aeKey };
}

/** The public values Confidential Mint and Burn is initialized with. */
export async function confidentialSupplyKeys(sign: SignMessage, mint: string): Promise<ConfidentialSupplyKeys> {
  const { elgamalSecret, aeKey } = await supplySecretKeys(sign, mint);
  const sdk = await zkSdk();
  const pubkey = sdk.ElGamalPubkey.fromSecretKey(elgamalSecret).toBytes();
  return {
    supplyElgamalPubkey: getAddressDecoder().decode(pubkey),
    decryptableSupply: Buffer.from(aeKey.encrypt(0n).toBytes()).toString('base64'),
  };
}
