/**
 * Mint (spec 4.3): new units of an instrument into a position, signed by the mint authority, with
 * the freeze rules (a frozen position needs `unfreeze`; `freeze`/`unfreeze` only for Token-2022
 * instruments with a freeze authority) and an optional memo (memo program v3).
 */
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, getFreezeAccountInstruction, getMintToCheckedInstruction, getThawAccountInstruction } from '@solana-program/token-2022';
import { getAddMemoInstruction } from '@solana-program/memo';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { MintItemData } from '../../api/codecs/position.codecs';
import { FinancialInstrument, Position } from '../../db/entities';
import { requireSigner } from '../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { LedgerError, validationError } from '../../domain/errors';
import { resolveValue } from '../../domain/money';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';

/** The memo program every public cluster has (STACK.md: v3; the client's default v4 is not deployed everywhere). */
export const MEMO_PROGRAM_V3 = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

interface MintData {
  positionId: string;
  position: string;
  mint: string;
  decimals: number;
  amount: string;
  mintAuthority: string;
  freezeAuthority: string | null;
  thaw: boolean;
  freezeAfter: boolean;
  tokenProgram: string;
  memo: string | null;
}

export const mintHandler: OperationHandler = {
  async lookup(em, deps, request) {
    const item = request.itemData as MintItemData;
    const f = 'itemData.mintTo';
    const position = await findPositionByLookup(em, { organizationId: request.organizationId, cluster: request.cluster }, item.mintTo, f);
    if (position.status !== 'ACTIVE') throw validationError(f, `the position is ${position.status}`);
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
    if (instrument.status !== 'ACTIVE') throw validationError(`${f}.financialInstrument`, `the instrument is ${instrument.status}`);
    if (instrument.paused) throw validationError(`${f}.financialInstrument`, 'the instrument is paused');
    const amount = resolveValue(item.value as { amount?: string; lamports?: string }, instrument.decimals, 'itemData.value');
    if (amount === 0n) throw validationError('itemData.value', 'the amount must be more than zero');
    const wantsFreezeRules = item.freeze || item.unfreeze;
    const freezeRef = instrument.authorities.freezeAuthority;
    if (wantsFreezeRules && (instrument.version !== 'TOKEN_2022' || !freezeRef)) {
      throw new LedgerError('FREEZE_AUTHORITY_NOT_FOUND', 'freeze and unfreeze are supported only for TOKEN_2022 instruments with a freeze authority', item.freeze ? 'itemData.freeze' : 'itemData.unfreeze');
    }
    if (position.frozen && !item.unfreeze) throw new LedgerError('POSITION_FROZEN', 'the position is frozen; set unfreeze to thaw it in the same transaction', f);
    const mintAuthority = await requireSigner(em, instrument.authorities.mintAuthority?.accountId, request.organizationId, request.organizationExternalId, `${f}.mintAuthority`, 'mint authority');
    const freezeAuthority = wantsFreezeRules ? await requireSigner(em, freezeRef!.accountId, request.organizationId, request.organizationExternalId, `${f}.freezeAuthority`, 'freeze authority') : null;
    const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
    const data: MintData = {
      positionId: position.id,
      position: position.address,
      mint: instrument.mintAddress,
      decimals: instrument.decimals,
      amount: amount.toString(),
      mintAuthority,
      freezeAuthority,
      thaw: position.frozen && !!item.unfreeze,
      freezeAfter: !!item.freeze,
      tokenProgram: instrument.version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS,
      memo: item.memo ?? null,
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: [...new Set([feePayer.address, mintAuthority, ...(freezeAuthority ? [freezeAuthority] : [])])],
      debits: [],
      webhooks: feePayer.webhooks,
      data: { ...data },
    };
  },

  instructions(_request, resolved) {
    const d = resolved.data as unknown as MintData;
    const config = { programAddress: address(d.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
    const account = address(d.position);
    const mint = address(d.mint);
    const out: Instruction[] = [];
    if (d.thaw) out.push(getThawAccountInstruction({ account, mint, owner: createNoopSigner(address(d.freezeAuthority!)) }, config));
    out.push(getMintToCheckedInstruction({ mint, token: account, mintAuthority: createNoopSigner(address(d.mintAuthority)), amount: BigInt(d.amount), decimals: d.decimals }, config));
    if (d.freezeAfter) out.push(getFreezeAccountInstruction({ account, mint, owner: createNoopSigner(address(d.freezeAuthority!)) }, config));
    if (d.memo) out.push(getAddMemoInstruction({ memo: d.memo }, { programAddress: address(MEMO_PROGRAM_V3) as never }));
    return out;
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const d = resolved.data as unknown as MintData;
    const position = await em.findOneOrFail(Position, { id: d.positionId });
    Object.assign(position, {
      balance: (BigInt(position.balance) + BigInt(d.amount)).toString(),
      frozen: d.freezeAfter ? true : d.thaw ? false : position.frozen,
      lastTransactionId: tx?.id ?? null,
      lastTransactionAt: at,
    });
    if (tx) tx.accountIds = [...new Set([...tx.accountIds, position.id])];
    return undefined;
  },
};
