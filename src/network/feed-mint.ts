/** The feed mint as the network holds it, read by the writes that change it. */
import { validationError } from '../domain/errors';
import { readOnchainInstrument } from '../domain/mint-state';
import type { FeedMintState } from '../domain/operations/oracle-data-sources/oracle-data-source.rules';
import type { SvmNetwork } from './svm-network';

export async function readFeedMint(network: SvmNetwork, mint: string, field: string): Promise<FeedMintState> {
  const account = await network.getAccount(mint);
  const state = account ? readOnchainInstrument(account.owner, account.data) : undefined;
  if (!account || !state?.metadata) throw validationError(field, `the feed mint ${mint} is not on ${network.cluster} with its metadata`);
  return { extensions: state.extensions, metadata: state.metadata, lamports: account.lamports };
}
