/**
 * What a mint account says about its instrument: supply, decimals, and the Token-2022 state the
 * record mirrors (paused, scaled UI multiplier). Pure: decodes bytes read from the network.
 */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, getMintDecoder } from '@solana-program/token-2022';
import type { MintExtension } from './token-extensions';

export interface MintState {
  supply: bigint;
  decimals: number;
  paused: boolean | null;
  /** The multiplier in effect at `now` (Scaled UI Amount), or null without that extension. */
  uiMultiplier: number | null;
}

/** Decodes SPL and Token-2022 mints alike (the first 82 bytes share one layout). */
export function decodeMintState(data: Uint8Array, now: Date): MintState {
  const mint = getMintDecoder().decode(data);
  const extensions = mint.extensions.__option === 'Some' ? mint.extensions.value : [];
  let paused: boolean | null = null;
  let uiMultiplier: number | null = null;
  for (const e of extensions) {
    if (e.__kind === 'PausableConfig') paused = e.paused;
    if (e.__kind === 'ScaledUiAmountConfig')
      uiMultiplier = BigInt(Math.floor(now.getTime() / 1000)) >= e.newMultiplierEffectiveTimestamp ? e.newMultiplier : e.multiplier;
  }
  return { supply: mint.supply, decimals: mint.decimals, paused, uiMultiplier };
}

/** Everything the record of an onboarded mint takes from the chain. */
export interface OnchainInstrument {
  version: 'SPL' | 'TOKEN_2022';
  decimals: number;
  supply: bigint;
  /** Authority addresses by the spec's field names (plus transferHookProgram). */
  authorities: Record<string, string>;
  extensions: MintExtension[];
  metadata: { name: string; symbol: string; uri: string; additional: Record<string, string> } | null;
  defaultPositionState: 'INITIALIZED' | 'FROZEN' | null;
  paused: boolean | null;
  scaledUiAmountMultiplier: number | null;
}

const optionValue = <T>(o: { __option: 'Some'; value: T } | { __option: 'None' }): T | null => (o.__option === 'Some' ? o.value : null);

/** Reads a mint account (owned by SPL Token or Token-2022) into the instrument record's terms. Pure. */
export function readOnchainInstrument(owner: string, data: Uint8Array): OnchainInstrument | undefined {
  const version = owner === TOKEN_PROGRAM_ADDRESS ? 'SPL' : owner === TOKEN_2022_PROGRAM_ADDRESS ? 'TOKEN_2022' : undefined;
  if (!version || data.length < 82) return undefined;
  const mint = getMintDecoder().decode(data);
  if (!mint.isInitialized) return undefined;
  const authorities: Record<string, string> = {};
  const set = (field: string, value: string | null) => value && (authorities[field] = value);
  set('mintAuthority', optionValue(mint.mintAuthority));
  set('freezeAuthority', optionValue(mint.freezeAuthority));
  const state: OnchainInstrument = {
    version,
    decimals: mint.decimals,
    supply: mint.supply,
    authorities,
    extensions: [],
    metadata: null,
    defaultPositionState: null,
    paused: null,
    scaledUiAmountMultiplier: null,
  };
  for (const e of mint.extensions.__option === 'Some' ? mint.extensions.value : []) {
    switch (e.__kind) {
      case 'MetadataPointer':
        state.extensions.push('METADATA_POINTER');
        break;
      case 'TokenMetadata':
        state.extensions.push('TOKEN_METADATA');
        set('updateAuthority', optionValue(e.updateAuthority));
        state.metadata = { name: e.name, symbol: e.symbol, uri: e.uri, additional: Object.fromEntries(e.additionalMetadata) };
        break;
      case 'DefaultAccountState':
        state.extensions.push('DEFAULT_ACCOUNT_STATE');
        state.defaultPositionState = e.state === 2 ? 'FROZEN' : 'INITIALIZED';
        break;
      case 'PermanentDelegate':
        state.extensions.push('PERMANENT_DELEGATE');
        set('permanentDelegateAuthority', e.delegate);
        break;
      case 'MintCloseAuthority':
        state.extensions.push('CLOSE_MINT');
        set('closingAuthority', e.closeAuthority);
        break;
      case 'PausableConfig':
        state.extensions.push('PAUSABLE');
        set('pausableAuthority', optionValue(e.authority));
        state.paused = e.paused;
        break;
      case 'ScaledUiAmountConfig':
        state.extensions.push('SCALED_UI_AMOUNT');
        set('scaledUiAmountAuthority', e.authority);
        state.scaledUiAmountMultiplier = e.newMultiplier;
        break;
      case 'TransferHook':
        state.extensions.push('TRANSFER_HOOK');
        set('transferHookAuthority', e.authority);
        set('transferHookProgram', e.programId);
        break;
      case 'ConfidentialTransferMint':
        state.extensions.push('CONFIDENTIAL_TRANSFER');
        set('confidentialTransferAuthority', optionValue(e.authority));
        break;
      case 'ConfidentialMintBurn':
        // The extension names no authority: its supply key holder is known only to whoever created it.
        state.extensions.push('CONFIDENTIAL_MINT_BURN');
        break;
      default:
        break;
    }
  }
  return state;
}
