/**
 * After an instrument's transaction lands, its record takes what the chain says: decimals,
 * authorities, extensions, metadata, paused and multiplier. The chain is the truth; the request
 * only said what was wanted.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account, FinancialInstrument, type AuthorityRef } from '../../../db/entities';
import { readOnchainInstrument } from '../../../domain/mint-state';
import type { SvmNetwork } from '../../../network/svm-network';

export async function reconcileInstrument(em: EntityManager, network: SvmNetwork, instrumentId: string): Promise<void> {
  const instrument = await em.findOne(FinancialInstrument, { id: instrumentId });
  if (!instrument || instrument.status !== 'ACTIVE') return;
  const account = await network.getAccount(instrument.mintAddress);
  const chain = account && readOnchainInstrument(account.owner, account.data);
  if (!chain) return;
  const known = await em.find(Account, {
    organizationId: instrument.organizationId,
    cluster: instrument.cluster,
    address: { $in: Object.values(chain.authorities) },
  });
  const authorities: Record<string, AuthorityRef> = {};
  for (const [field, address] of Object.entries(chain.authorities)) {
    authorities[field] = { address, accountId: known.find((a) => a.address === address)?.id ?? null };
  }
  Object.assign(instrument, {
    version: chain.version,
    decimals: chain.decimals,
    authorities,
    extensions: chain.extensions,
    paused: chain.paused,
    scaledUiAmountMultiplier: chain.scaledUiAmountMultiplier === null ? null : String(chain.scaledUiAmountMultiplier),
    defaultPositionState: chain.defaultPositionState,
    ...(chain.metadata
      ? { name: chain.metadata.name, symbol: chain.metadata.symbol, uri: chain.metadata.uri, onchainCustomMetadata: chain.metadata.additional }
      : {}),
  });
}
