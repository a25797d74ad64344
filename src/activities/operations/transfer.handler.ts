/**
 * Transfer Financial Instrument (spec 4.3) between two positions of the same instrument, signed by the
 * source's owner: balance checked before anything is signed, freeze rules per side, memo, and
 * transferEntireBalance. Both positions must exist (initializeDestinationPositionIfNeeded and the
 * permanent delegate come later).
 */
import { getTokenDecoder, getTransferCheckedInstruction } from '@solana-program/token-2022';
import { address, createNoopSigner } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { TransferItemData } from '../../api/codecs/position.codecs';
import { FinancialInstrument } from '../../db/entities';
import { requireSigner } from '../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { LedgerError, validationError } from '../../domain/errors';
import { fromBaseUnits, resolveValue } from '../../domain/money';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';
import { aroundMovement, freezeAuthorityFor, moveBalance, requireUnfrozen, tokenProgramOf, type AroundMovement } from './token-movement';

interface TransferData extends AroundMovement {
  sourceId: string;
  destinationId: string;
  source: string;
  destination: string;
  decimals: number;
  amount: string;
  owner: string;
}

export const transferHandler: OperationHandler = {
  async lookup(em, deps, request) {
    const item = request.itemData as TransferItemData;
    const scope = { organizationId: request.organizationId, cluster: request.cluster };
    if (item.signWithPermanentDelegate || item.permanentDelegateAuthority) throw validationError('itemData.signWithPermanentDelegate', 'signing with the permanent delegate is not available yet');
    if (item.initializeDestinationPositionIfNeeded) throw validationError('itemData.initializeDestinationPositionIfNeeded', 'initializing the destination in the transfer is not available yet; use Initialize Position first');
    const source = await findPositionByLookup(em, scope, item.source, 'itemData.source');
    const destination = await findPositionByLookup(em, scope, item.destination, 'itemData.destination');
    if (source.id === destination.id) throw validationError('itemData.destination', 'the destination is the source');
    if (source.financialInstrumentId !== destination.financialInstrumentId) throw validationError('itemData.destination', 'both positions must hold the same instrument');
    for (const [side, position] of [['source', source], ['destination', destination]] as const) {
      if (position.status !== 'ACTIVE') throw validationError(`itemData.${side}`, `the ${side} position is ${position.status}`);
    }
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: source.financialInstrumentId });
    if (instrument.paused) throw validationError('itemData.source.financialInstrument', 'the instrument is paused');
    if (instrument.extensions.includes('TRANSFER_HOOK')) throw validationError('itemData.source.financialInstrument', 'transfers of transfer-hook instruments are not available yet');

    const freezeAuthority = await freezeAuthorityFor(
      em,
      request,
      instrument,
      { unfreezeSource: item.unfreezeSource, freezeSource: item.freezeSource, unfreezeDestination: item.unfreezeDestination, freezeDestination: item.freezeDestination },
      'itemData.source.freezeAuthority',
    );
    requireUnfrozen(source, item.unfreezeSource, 'unfreezeSource', 'itemData.source');
    requireUnfrozen(destination, item.unfreezeDestination, 'unfreezeDestination', 'itemData.destination');

    const chainAccount = await deps.networks.get(request.cluster)!.getAccount(source.address);
    const onchain = chainAccount ? getTokenDecoder().decode(chainAccount.data).amount : 0n;
    const available = item.offchainBalanceAvailabilityPrecheck ? BigInt(source.balance) : onchain;
    if (!item.value === !item.transferEntireBalance) throw validationError('itemData.value', 'give value or transferEntireBalance (one of them)');
    const amount = item.transferEntireBalance ? onchain : resolveValue(item.value as { amount?: string; lamports?: string }, instrument.decimals, 'itemData.value');
    if (amount === 0n) throw validationError(item.transferEntireBalance ? 'itemData.transferEntireBalance' : 'itemData.value', 'there is nothing to transfer');
    if (amount > available) throw new LedgerError('INSUFFICIENT_BALANCE', `the source holds ${fromBaseUnits(available, instrument.decimals)}; ${fromBaseUnits(amount, instrument.decimals)} cannot be transferred`, 'itemData.value');

    const owner = await requireSigner(em, source.ownerAccountId, request.organizationId, request.organizationExternalId, 'itemData.source.owner', 'source owner');
    const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
    const data: TransferData = {
      sourceId: source.id,
      destinationId: destination.id,
      source: source.address,
      destination: destination.address,
      mint: instrument.mintAddress,
      decimals: instrument.decimals,
      amount: amount.toString(),
      owner,
      freezeAuthority,
      thaw: [...(source.frozen && item.unfreezeSource ? [source.address] : []), ...(destination.frozen && item.unfreezeDestination ? [destination.address] : [])],
      freeze: [...(item.freezeSource ? [source.address] : []), ...(item.freezeDestination ? [destination.address] : [])],
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
    const d = resolved.data as unknown as TransferData;
    return aroundMovement(d, (config) =>
      getTransferCheckedInstruction(
        { source: address(d.source), mint: address(d.mint), destination: address(d.destination), authority: createNoopSigner(address(d.owner)), amount: BigInt(d.amount), decimals: d.decimals },
        config,
      ),
    );
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const d = resolved.data as unknown as TransferData;
    const frozenAfter = (address: string) => (frozen: boolean) => (d.freeze.includes(address) ? true : d.thaw.includes(address) ? false : frozen);
    await moveBalance(em, d.sourceId, -BigInt(d.amount), frozenAfter(d.source), tx, at);
    await moveBalance(em, d.destinationId, BigInt(d.amount), frozenAfter(d.destination), tx, at);
    return undefined;
  },
};
