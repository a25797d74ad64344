/**
 * Mint (spec 4.3): new units of an instrument into a position, signed by the mint authority, with
 * the freeze rules (a frozen position needs `unfreeze`; `freeze`/`unfreeze` only for Token-2022
 * instruments with a freeze authority) and an optional memo (memo program v3).
 */
import { getMintToCheckedInstruction } from '@solana-program/token-2022';
import { address, createNoopSigner } from '@solana/kit';
import type { SvmTransactionConfigInput } from '../../api/codecs/common.codecs';
import type { MintItemData } from '../../api/codecs/position.codecs';
import { FinancialInstrument } from '../../db/entities';
import { requireSigner } from '../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../db/repositories/positions.repository';
import { validationError } from '../../domain/errors';
import { resolveValue } from '../../domain/money';
import { resolveFeePayer } from './fee-payer';
import type { OperationHandler } from './operation-handler';
import { aroundMovement, freezeAuthorityFor, moveBalance, requireUnfrozen, tokenProgramOf, type AroundMovement } from './token-movement';

interface MintData extends AroundMovement {
  positionId: string;
  position: string;
  decimals: number;
  amount: string;
  mintAuthority: string;
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
    const freezeAuthority = await freezeAuthorityFor(em, request, instrument, { freeze: item.freeze, unfreeze: item.unfreeze }, `${f}.freezeAuthority`);
    requireUnfrozen(position, item.unfreeze, 'unfreeze', f);
    const mintAuthority = await requireSigner(em, instrument.authorities.mintAuthority?.accountId, request.organizationId, request.organizationExternalId, `${f}.mintAuthority`, 'mint authority');
    const feePayer = await resolveFeePayer(em, deps, request, (request.svmTransactionConfig ?? {}) as SvmTransactionConfigInput);
    const data: MintData = {
      positionId: position.id,
      position: position.address,
      mint: instrument.mintAddress,
      decimals: instrument.decimals,
      amount: amount.toString(),
      mintAuthority,
      freezeAuthority,
      thaw: position.frozen && item.unfreeze ? [position.address] : [],
      freeze: item.freeze ? [position.address] : [],
      tokenProgram: tokenProgramOf(instrument),
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
    return aroundMovement(d, (config) =>
      getMintToCheckedInstruction({ mint: address(d.mint), token: address(d.position), mintAuthority: createNoopSigner(address(d.mintAuthority)), amount: BigInt(d.amount), decimals: d.decimals }, config),
    );
  },

  async record(em, _request, resolved, outcome, tx, at) {
    if (!outcome || !['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status)) return undefined;
    const d = resolved.data as unknown as MintData;
    await moveBalance(em, d.positionId, BigInt(d.amount), (frozen) => (d.freeze.length ? true : d.thaw.length ? false : frozen), tx, at);
    return undefined;
  },
};
