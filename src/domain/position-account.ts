/**
 * The size of an explicit (non-associated) position: the token account the token program will
 * initialize in place, sized as InitializeAccount3 requires for the mint it holds. Pure: decodes
 * the mint's bytes as read from the network.
 */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { extension, getMintDecoder, getTokenSize, type ExtensionArgs } from '@solana-program/token-2022';

/** An SPL token account, and a Token-2022 one whose mint needs no account extension. */
export const TOKEN_ACCOUNT_SIZE = 165;
/** The token programs tell a multisig from an account by size; Token-2022 pads an account of this size. */
const MULTISIG_SIZE = 355;

/**
 * The account extensions a mint's extensions force on every account that holds it (Token-2022's
 * `get_required_init_account_extensions`): without their space InitializeAccount3 fails.
 */
export function requiredAccountExtensions(mintData: Uint8Array): ExtensionArgs[] {
  const mint = getMintDecoder().decode(mintData);
  const args: ExtensionArgs[] = [];
  for (const e of mint.extensions.__option === 'Some' ? mint.extensions.value : []) {
    switch (e.__kind) {
      case 'TransferFeeConfig':
        args.push(extension('TransferFeeAmount', { withheldAmount: 0n }));
        break;
      case 'NonTransferable':
        args.push(extension('NonTransferableAccount', {}));
        break;
      case 'TransferHook':
        args.push(extension('TransferHookAccount', { transferring: false }));
        break;
      case 'ConfidentialTransferFee':
        args.push(extension('ConfidentialTransferFeeAmount', { withheldAmount: new Uint8Array(64) }));
        break;
      case 'PausableConfig':
        args.push(extension('PausableAccount', {}));
        break;
    }
  }
  return args;
}

/** Bytes of a token account for the mint owned by `mintOwner` (SPL Token or Token-2022) with `mintData`. */
export function positionAccountSize(mintOwner: string, mintData: Uint8Array): number {
  if (mintOwner === TOKEN_PROGRAM_ADDRESS) return TOKEN_ACCOUNT_SIZE;
  const args = requiredAccountExtensions(mintData);
  const size = getTokenSize(args.length ? args : undefined);
  return size === MULTISIG_SIZE ? size + 4 : size;
}
