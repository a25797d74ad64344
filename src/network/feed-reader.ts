/**
 * Reading a LEDGER_FEED without this service (docs/oracle-data-sources.md): any Solana JSON-RPC endpoint and the
 * Token-2022 client. The feed mint's Metadata Pointer names the mint itself, and its Token Metadata
 * additional fields hold the feed; the value is exact decimal text.
 */
import { address, type Rpc, type GetAccountInfoApi } from '@solana/kit';
import { fetchMint } from '@solana-program/token-2022';
import { readFeed, type FeedDefinition, type FeedValue } from '../domain/operations/oracle-data-sources/oracle-data-source.rules';

export interface OnchainFeed extends FeedDefinition, FeedValue {
  /** Who may write it (the metadata's update authority). */
  updateAuthority: string | null;
}

/** The feed at `feed`, or null when that mint carries no self-pointed feed metadata. */
export async function readOnchainFeed(rpc: Rpc<GetAccountInfoApi>, feed: string): Promise<OnchainFeed | null> {
  const mint = await fetchMint(rpc, address(feed));
  const extensions = mint.data.extensions.__option === 'Some' ? mint.data.extensions.value : [];
  const pointer = extensions.find((e) => e.__kind === 'MetadataPointer');
  const metadata = extensions.find((e) => e.__kind === 'TokenMetadata');
  if (!pointer || !metadata || pointer.metadataAddress.__option !== 'Some' || pointer.metadataAddress.value !== feed) return null;
  const fields = readFeed(Object.fromEntries(metadata.additionalMetadata));
  if (!fields) return null;
  return { ...fields, updateAuthority: metadata.updateAuthority.__option === 'Some' ? metadata.updateAuthority.value : null };
}
