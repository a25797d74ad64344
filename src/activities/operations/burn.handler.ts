/**
 * Burn (API.md 6): units removed from a position, signed by its owner, with the freeze rules of Mint,
 * a balance check before anything is signed (against the offchain record with
 * offchainBalanceAvailabilityPrecheck, else against the chain) and burnEntireBalance.
 */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, getBurnCheckedInstruction, getFreezeAccountInstruction, getThawAccountInstruction, getTokenDecoder } from '@solana-program/token-2022';
import { getAddMemoInstruction } from '@solana-program/memo';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { BurnItemData } from '../../api/codecs/position.codecs';
import { FinancialInstrument, Position } from '../../db/entities';
import { requireSigner } from '../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { LedgerError, validationError } from '../../domain/errors';
import { fromBaseUnits, resolveValue } from '../../domain/money';
import { resolveFeePayer } from './fee-payer';
import { MEMO_PROGRAM_V3 } from './mint.handler';
import type { OperationHandler } from './operation-handler';

interface BurnData {
  positionId: string;
  position: string;
  mint: string;
  decimals: number;
  amount: string;
  owner: string;
  freezeAuthority: string | null;
  thaw: boolean;
  freezeAfter: boolean;
  tokenProgram: string;
  memo: string | null;
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
    const freezeRef = instrument.authorities.freezeAuthority;
    if ((item.freeze || item.unfreeze) && (instrument.version !== 'TOKEN_2022' || !freezeRef)) {
      throw new LedgerError('FREEZE_AUTHORITY_NOT_FOUND', 'freeze and unfreeze are supported only for TOKEN_2022 instruments with a freeze authority', item.freeze ? 'itemData.freeze' : 'itemData.unfreeze');
    }
    if (position.frozen && !item.unfreeze) throw new LedgerError('POSITION_FROZEN', 'the position is frozen; set unfreeze to thaw it in the same transaction', f);
    const owner = await requireSigner(em, position.ownerAccountId, request.organizationId, request.organizationExternalId, `${f}.owner`, 'owner');
    const freezeAuthority = item.freeze || item.unfreeze ? await requireSigner(em, freezeRef!.accountId, request.organizationId, request.organizationExternalId, `${f}.freezeAuthority`, 'freeze authority') : null;
    const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
    const data: BurnData = {
      positionId: position.id,
      position: position.address,
      mint: instrument.mintAddress,
      decimals: instrument.decimals,
      amount: amount.toString(),
      owner,
      freezeAuthority,
      thaw: position.frozen && !!item.unfreeze,
      freezeAfter: !!item.freeze,
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
    const d = resolved.data as unknown as BurnData;
    const config = { programAddress: address(d.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
    const account = address(d.position);
    const mint = address(d.mint);
    const out: Instruction[] = [];
    if (d.thaw) out.push(getThawAccountInstruction({ account, mint, owner: createNoopSigner(address(d.freezeAuthority!)) }, config));
    out.push(getBurnCheckedInstruction({ account, mint, authority: createNoopSigner(address(d.owner)), amount: BigInt(d.amount), decimals: d.decimals }, config));
    if (d.freezeAfter) out.push(getFreezeAccountInstruction({ account, mint, owner: createNoopSigner(address(d.freezeAuthority!)) }, config));
    if (d.memo) out.push(getAddMemoInstruction({ memo: d.memo }, { programAddress: address(MEMO_PROGRAM_V3) as never }));
    return out;
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const d = resolved.data as unknown as BurnData;
    const position = await em.findOneOrFail(Position, { id: d.positionId });
    Object.assign(position, {
      balance: (BigInt(position.balance) - BigInt(d.amount)).toString(),
      frozen: d.freezeAfter ? true : d.thaw ? false : position.frozen,
      lastTransactionId: tx?.id ?? null,
      lastTransactionAt: at,
    });
    if (tx) tx.accountIds = [...new Set([...tx.accountIds, position.id])];
    return undefined;
  },
};
