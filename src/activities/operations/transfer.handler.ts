/**
 * Transfer Financial Instrument (spec 4.3) between two positions of the same instrument, signed by the
 * source's owner: balance checked before anything is signed, freeze rules per side, memo, and
 * transferEntireBalance. Both positions must exist (initializeDestinationPositionIfNeeded and the
 * permanent delegate come later).
 */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, getFreezeAccountInstruction, getThawAccountInstruction, getTokenDecoder, getTransferCheckedInstruction } from '@solana-program/token-2022';
import { getAddMemoInstruction } from '@solana-program/memo';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { TransferItemData } from '../../api/codecs/position.codecs';
import { FinancialInstrument, Position } from '../../db/entities';
import { requireSigner } from '../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { LedgerError, validationError } from '../../domain/errors';
import { fromBaseUnits, resolveValue } from '../../domain/money';
import { resolveFeePayer } from './fee-payer';
import { MEMO_PROGRAM_V3 } from './mint.handler';
import type { OperationHandler } from './operation-handler';

interface Side {
  positionId: string;
  address: string;
  thaw: boolean;
  freezeAfter: boolean;
}

interface TransferData {
  source: Side;
  destination: Side;
  mint: string;
  decimals: number;
  amount: string;
  owner: string;
  freezeAuthority: string | null;
  tokenProgram: string;
  memo: string | null;
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

    const flags = { unfreezeSource: item.unfreezeSource, freezeSource: item.freezeSource, unfreezeDestination: item.unfreezeDestination, freezeDestination: item.freezeDestination };
    const flagged = Object.entries(flags).find(([, on]) => on);
    const freezeRef = instrument.authorities.freezeAuthority;
    if (flagged && (instrument.version !== 'TOKEN_2022' || !freezeRef)) {
      throw new LedgerError('FREEZE_AUTHORITY_NOT_FOUND', 'freeze and unfreeze are supported only for TOKEN_2022 instruments with a freeze authority', `itemData.${flagged[0]}`);
    }
    if (source.frozen && !item.unfreezeSource) throw new LedgerError('POSITION_FROZEN', 'the source position is frozen; set unfreezeSource to thaw it in the same transaction', 'itemData.source');
    if (destination.frozen && !item.unfreezeDestination) throw new LedgerError('POSITION_FROZEN', 'the destination position is frozen; set unfreezeDestination to thaw it in the same transaction', 'itemData.destination');

    const chainAccount = await deps.networks.get(request.cluster)!.getAccount(source.address);
    const onchain = chainAccount ? getTokenDecoder().decode(chainAccount.data).amount : 0n;
    const available = item.offchainBalanceAvailabilityPrecheck ? BigInt(source.balance) : onchain;
    if (!item.value === !item.transferEntireBalance) throw validationError('itemData.value', 'give value or transferEntireBalance (one of them)');
    const amount = item.transferEntireBalance ? onchain : resolveValue(item.value as { amount?: string; lamports?: string }, instrument.decimals, 'itemData.value');
    if (amount === 0n) throw validationError(item.transferEntireBalance ? 'itemData.transferEntireBalance' : 'itemData.value', 'there is nothing to transfer');
    if (amount > available) throw new LedgerError('INSUFFICIENT_BALANCE', `the source holds ${fromBaseUnits(available, instrument.decimals)}; ${fromBaseUnits(amount, instrument.decimals)} cannot be transferred`, 'itemData.value');

    const owner = await requireSigner(em, source.ownerAccountId, request.organizationId, request.organizationExternalId, 'itemData.source.owner', 'source owner');
    const freezeAuthority = flagged ? await requireSigner(em, freezeRef!.accountId, request.organizationId, request.organizationExternalId, 'itemData.source.freezeAuthority', 'freeze authority') : null;
    const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
    const data: TransferData = {
      source: { positionId: source.id, address: source.address, thaw: source.frozen && !!item.unfreezeSource, freezeAfter: !!item.freezeSource },
      destination: { positionId: destination.id, address: destination.address, thaw: destination.frozen && !!item.unfreezeDestination, freezeAfter: !!item.freezeDestination },
      mint: instrument.mintAddress,
      decimals: instrument.decimals,
      amount: amount.toString(),
      owner,
      freezeAuthority,
      tokenProgram: instrument.version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS,
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
    const config = { programAddress: address(d.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
    const mint = address(d.mint);
    const freezer = () => createNoopSigner(address(d.freezeAuthority!));
    const out: Instruction[] = [];
    for (const side of [d.source, d.destination]) if (side.thaw) out.push(getThawAccountInstruction({ account: address(side.address), mint, owner: freezer() }, config));
    out.push(getTransferCheckedInstruction({ source: address(d.source.address), mint, destination: address(d.destination.address), authority: createNoopSigner(address(d.owner)), amount: BigInt(d.amount), decimals: d.decimals }, config));
    for (const side of [d.source, d.destination]) if (side.freezeAfter) out.push(getFreezeAccountInstruction({ account: address(side.address), mint, owner: freezer() }, config));
    if (d.memo) out.push(getAddMemoInstruction({ memo: d.memo }, { programAddress: address(MEMO_PROGRAM_V3) as never }));
    return out;
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const d = resolved.data as unknown as TransferData;
    for (const [side, sign] of [[d.source, -1n], [d.destination, 1n]] as const) {
      const position = await em.findOneOrFail(Position, { id: side.positionId });
      Object.assign(position, {
        balance: (BigInt(position.balance) + sign * BigInt(d.amount)).toString(),
        frozen: side.freezeAfter ? true : side.thaw ? false : position.frozen,
        lastTransactionId: tx?.id ?? null,
        lastTransactionAt: at,
      });
      if (tx) tx.accountIds = [...new Set([...tx.accountIds, position.id])];
    }
    return undefined;
  },
};
