/**
 * Token-2022 mint extensions as the API names them, and the mint account's size and rent computed
 * exactly as the network does: the Token-2022 layout (via the program client's sizing) and the
 * default rent, (128 + size) × 3480 × 2 lamports. Pure.
 */
import { extension, getMintSize, type ExtensionArgs } from '@solana-program/token-2022';
import { address, none, type Address } from '@solana/kit';

export const mintExtensions = [
  'METADATA_POINTER',
  'TOKEN_METADATA',
  'DEFAULT_ACCOUNT_STATE',
  'PERMANENT_DELEGATE',
  'CLOSE_MINT',
  'PAUSABLE',
  'SCALED_UI_AMOUNT',
  'TRANSFER_HOOK',
  'CONFIDENTIAL_TRANSFER',
  'CONFIDENTIAL_MINT_BURN',
] as const;
export type MintExtension = (typeof mintExtensions)[number];

export interface TokenMetadataInput {
  name?: string;
  symbol?: string;
  uri?: string;
  /** Additional key/value fields (the instrument's `simpleCustomMetadata`). */
  additionalMetadata?: Record<string, string>;
}

/** Sizing placeholder: every address field of a mint extension is a fixed 32 bytes. */
const ANY: Address = address('11111111111111111111111111111111');

/** The extension values a mint carries, for sizing (the data's contents do not change its size, except metadata's). */
export function extensionArgs(extensions: readonly MintExtension[], metadata?: TokenMetadataInput): ExtensionArgs[] {
  const wanted = new Set(extensions);
  // Token Metadata lives in the mint itself, which the Metadata Pointer must name (spec 2.4).
  if (metadata || wanted.has('TOKEN_METADATA')) wanted.add('METADATA_POINTER').add('TOKEN_METADATA');
  if (wanted.has('CONFIDENTIAL_MINT_BURN')) wanted.add('CONFIDENTIAL_TRANSFER');
  const args: ExtensionArgs[] = [];
  for (const kind of mintExtensions) {
    if (!wanted.has(kind)) continue;
    switch (kind) {
      case 'METADATA_POINTER':
        args.push(extension('MetadataPointer', { authority: ANY, metadataAddress: ANY }));
        break;
      case 'TOKEN_METADATA':
        args.push(
          extension('TokenMetadata', {
            updateAuthority: ANY,
            mint: ANY,
            name: metadata?.name ?? '',
            symbol: metadata?.symbol ?? '',
            uri: metadata?.uri ?? '',
            additionalMetadata: new Map(Object.entries(metadata?.additionalMetadata ?? {})),
          }),
        );
        break;
      case 'DEFAULT_ACCOUNT_STATE':
        args.push(extension('DefaultAccountState', { state: 1 }));
        break;
      case 'PERMANENT_DELEGATE':
        args.push(extension('PermanentDelegate', { delegate: ANY }));
        break;
      case 'CLOSE_MINT':
        args.push(extension('MintCloseAuthority', { closeAuthority: ANY }));
        break;
      case 'PAUSABLE':
        args.push(extension('PausableConfig', { authority: ANY, paused: false }));
        break;
      case 'SCALED_UI_AMOUNT':
        args.push(extension('ScaledUiAmountConfig', { authority: ANY, multiplier: 1, newMultiplierEffectiveTimestamp: 0n, newMultiplier: 1 }));
        break;
      case 'TRANSFER_HOOK':
        args.push(extension('TransferHook', { authority: ANY, programId: ANY }));
        break;
      case 'CONFIDENTIAL_TRANSFER':
        args.push(extension('ConfidentialTransferMint', { authority: ANY, autoApproveNewAccounts: false, auditorElgamalPubkey: none() }));
        break;
      case 'CONFIDENTIAL_MINT_BURN':
        args.push(
          extension('ConfidentialMintBurn', {
            confidentialSupply: new Uint8Array(64),
            decryptableSupply: new Uint8Array(36),
            supplyElgamalPubkey: ANY,
            pendingBurn: new Uint8Array(64),
          }),
        );
        break;
    }
  }
  return args;
}

/** Confidential Mint and Burn's public supply keys (derived from its authority's key in custody). */
export interface ConfidentialSupplyKeys {
  /** The supply's ElGamal public key, in the 32-byte form the program stores (written as an address). */
  supplyElgamalPubkey: string;
  /** A zero supply encrypted under the supply's AES key (36 bytes, base64). */
  decryptableSupply: string;
}

/** Bytes of a mint with these extensions (82 for a plain SPL-sized mint). */
export function mintAccountSize(extensions: readonly MintExtension[], metadata?: TokenMetadataInput): number {
  const args = extensionArgs(extensions, metadata);
  return getMintSize(args.length ? args : undefined);
}

/** The network's rent-exempt minimum for an account of `size` bytes at the default rent. */
export function rentExemptMinimum(size: number): bigint {
  return (128n + BigInt(size)) * 3480n * 2n;
}
