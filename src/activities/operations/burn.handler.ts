/**
 * Burn (API.md 6): units removed from a position, signed by its owner, with the freeze rules of Mint,
 * a balance check before anything is signed (against the offchain record with
 * offchainBalanceAvailabilityPrecheck, else against the chain) and burnEntireBalance.
 */
import { getBurnCheckedInstruction, getTokenDecoder } from '@solana-program/token-2022';
import { address, createNoopSigner } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { BurnItemData } from '../../api/codecs/position.codecs';
import { FinancialInstrument } from '../../db/entities';
import { requireSigner } from '../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { LedgerError, validationError } from '../../domain/errors';
import { fromBaseUnits, resolveValue } from '../../domain/money';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';
import { aroundMovement, freezeAuthorityFor, moveBalance, requireUnfrozen, tokenProgramOf, type AroundMovement } from './token-movement';

interface BurnData extends AroundMovement {
  positionId: string;
  position: string;
  decimals: number;
  amount: string;
  owner: string;
}

export const burnHandler: OperationHandler = {
  async lookup(em, deps, request) {
    const item = request.itemData as BurnItemData;
    const f = 'itemData.burnFrom';
    const position = await findPositionByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, item.burnFrom, f);
    if (position.status !== 'ACTIVE') throw validationError(f, `the position is ${position.status}`);
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
    if (instrument.paused) throw validationError(`${f}.financialInstrument`, 'the instrument is paused');
    const chainAccount = await deps.networks.get(request.cluster)!.getAccount(position.address);
    const onchain = chainAccount ? getTokenDecoder().decode(chainAccount.data).amount : 0n;
    const available = item.offchainBalanceAvailabilityPrecheck ? BigInt(position.balance) : onchain;
    if (!item.value && !item.burnEntireBalance) throw validationError('itemData.value', 'give value or burnEntireBalance');
    if (item.value && item.burnEntireBalance) throw validationError('itemData.burnEntireBalance', 'give value or burnEntireBalance, not both');
    const amount = item.burnEntireBalance ? onchain : resolveValue(item.value as { amount?: string; lamports?: string }, instrument.decimals, 'itemData.value');
    if (amount === 0n) throw validationError(item.burnEntireBalance ? 'itemData.burnEntireBalance' : 'itemData.value', 'there is nothing to burn');
    if (amount > available) {
      throw new LedgerError('INSUFFICIENT_BALANCE', `the position holds ${fromBaseUnits(available, instrument.decimals)}; ${fromBaseUnits(amount, instrument.decimals)} cannot be burned`, 'itemData.value');
    }
    const freezeAuthority = await freezeAuthorityFor(em, request, instrument, { freeze: item.freeze, unfreeze: item.unfreeze }, `${f}.freezeAuthority`);
    requireUnfrozen(position, item.unfreeze, 'unfreeze', f);
    const owner = await requireSigner(em, position.ownerAccountId, request.organizationId, request.organizationExternalId, `${f}.owner`, 'owner');
    const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
    const data: BurnData = {
      positionId: position.id,
      position: position.address,
      mint: instrument.mintAddress,
      decimals: instrument.decimals,
      amount: amount.toString(),
      owner,
      freezeAuthority,
      thaw: position.frozen && item.unfreeze ? [position.address] : [],
      freeze: item.freeze ? [position.address] : [],
      tokenProgram: tokenProgramOf(instrument),
      memo: item.memo ?? null,
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, owner, ...(freezeAuthority ? [freezeAuthority] : [])])],
      debits: [],
      webhooks: feePayer.webhooks,
      data: { ...data },
    };
  },

  instructions(_request, resolved) {
    const d = resolved.data as unknown as BurnData;
    return aroundMovement(d, (config) =>
      getBurnCheckedInstruction({ account: address(d.position), mint: address(d.mint), authority: createNoopSigner(address(d.owner)), amount: BigInt(d.amount), decimals: d.decimals }, config),
    );
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const d = resolved.data as unknown as BurnData;
    await moveBalance(em, d.positionId, -BigInt(d.amount), (frozen) => (d.freeze.length ? true : d.thaw.length ? false : frozen), tx, at);
    return undefined;
  },
};
