/**
 * Transfer Network Currency: lamports from a managed account to any address, signed by the
 * source; refused before anything is signed when the chain would refuse it (the source's data, its
 * balance). The debit is classified by its destination (OFF_PLATFORM, NON_MANAGED, MANAGED) so the
 * limit-check step applies spec 8's limits to it.
 */
import { getTransferSolInstruction } from '@solana-program/system';
import { getAddMemoInstruction } from '@solana-program/memo';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { TransferNetworkCurrencyItemData } from '../../../domain/operations/accounts/account.inputs';
import { findAccountByLookup, offPlatformAddress, signerMode } from '../../../db/repositories/accounts.repository';
import {
  checkAvailableLamports,
  checkDistinct,
  checkTransferableSource,
  LAMPORTS_PER_SIGNATURE,
  offPlatformDestination,
  onboardedDestination,
  transferLamports,
} from '../../../domain/operations/accounts/transfer-network-currency.rules';
import { signerSet, type Debit } from '../../../domain/write';
import { resolveFeePayer } from '../fee-payer';
import { MEMO_PROGRAM_V3 } from '../positions/token-movement';
import { scopeOf, type OperationHandler, type OperationRequest } from '../operation-handler';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { AccountLookupInput } from '../../../domain/inputs/common.inputs';
import type { TenantScope } from '../../../db/repositories/accounts.repository';

/** The onboarded source, and whether its signature is awaited from the caller. */
async function onboardedSource(em: EntityManager, scope: TenantScope, request: OperationRequest<TransferNetworkCurrencyItemData>, lookup: AccountLookupInput) {
  const account = await findAccountByLookup(em, scope, lookup, 'itemData.source');
  const mode = signerMode(account, request.organizationId, request.organizationExternalId, lookup.autoSign, 'itemData.source');
  return { id: account.id, address: account.address, awaited: mode === 'AWAITED' };
}

interface TransferSolData {
  source: string;
  destination: string;
  amount: string;
  memo: string | null;
}

export const transferNetworkCurrencyHandler: OperationHandler<TransferNetworkCurrencyItemData, TransferSolData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const scope = scopeOf(request);
    // An off-platform source, or one the service may not sign for, signs through Sign Transaction (the write waits).
    const source = item.source.offPlatform
      ? { id: null, address: offPlatformAddress(item.source, 'itemData.source'), awaited: true }
      : await onboardedSource(em, scope, request, item.source);
    const destination: NonNullable<Debit['destination']> = item.destination.offPlatform
      ? offPlatformDestination(offPlatformAddress(item.destination, 'itemData.destination'))
      : onboardedDestination(await findAccountByLookup(em, scope, item.destination, 'itemData.destination'), 'itemData.destination');
    checkDistinct(source.address, destination.address);
    const amount = transferLamports(item);
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    const signers = signerSet(feePayer.address, source.address);
    // Checked before anything is signed: a transfer the chain would refuse pays no fee.
    const network = deps.networks.get(request.cluster)!;
    const onchain = await network.getAccount(source.address);
    if (onchain) checkTransferableSource(source.address, { owner: onchain.owner, dataLength: onchain.data.length }, 'itemData.source');
    const fee = source.address === feePayer.address ? LAMPORTS_PER_SIGNATURE * BigInt(signers.length) : 0n;
    checkAvailableLamports({ address: source.address, lamports: onchain?.lamports ?? 0n }, amount, fee, await network.getMinimumBalanceForRentExemption(0));
    const data: TransferSolData = { source: source.address, destination: destination.address, amount: amount.toString(), memo: item.memo ?? null };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers,
      awaitedSigners: source.awaited && source.address !== feePayer.address ? [source.address] : [],
      debits: [
        {
          accountId: source.id,
          address: source.address,
          asset: 'NETWORK_CURRENCY',
          amount: data.amount,
          operationType: 'TRANSFER',
          destination,
          field: 'itemData.source',
        },
      ],
      webhooks: feePayer.webhooks,
      data,
    };
  },

  instructions(_request, resolved) {
    const d = resolved.data;
    const out: Instruction[] = [
      getTransferSolInstruction({ source: createNoopSigner(address(d.source)), destination: address(d.destination), amount: BigInt(d.amount) }),
    ];
    if (d.memo) out.push(getAddMemoInstruction({ memo: d.memo }, { programAddress: address(MEMO_PROGRAM_V3) }));
    return out;
  },

  // Balances of onboarded accounts move in the record step from the network's own pre/post balances.
  async record() {
    return undefined;
  },
};
