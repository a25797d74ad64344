/**
 * What a mint account says about its instrument: supply, decimals, and the Token-2022 state the
 * record mirrors (paused, scaled UI multiplier). Pure: decodes bytes read from the network.
 */
import { getMintDecoder } from '@solana-program/token-2022';

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
    if (e.__kind === 'ScaledUiAmountConfig') uiMultiplier = BigInt(Math.floor(now.getTime() / 1000)) >= e.newMultiplierEffectiveTimestamp ? e.newMultiplier : e.multiplier;
  }
  return { supply: mint.supply, decimals: mint.decimals, paused, uiMultiplier };
}
