/**
 * Freeze / Unfreeze Position, signed by the instrument's freeze authority: one position (SPL and
 * Token-2022), or every active position of an SPL instrument (`allPositions`): one write of several
 * network transactions, FREEZE_ALL_BATCH positions each, at most MAX_FREEZE_BATCHES per request.
 */
import { TOKEN_2022_PROGRAM_ADDRESS, getFreezeAccountInstruction, getThawAccountInstruction } from '@solana-program/token-2022';
import { address, createNoopSigner } from '@solana/kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FreezePositionItemData } from '../../../domain/operations/positions/position.inputs';
import { FinancialInstrument, Position } from '../../../db/entities';
import { requireSigner } from '../../../db/repositories/accounts.repository';
import { findInstrumentByLookup } from '../../../db/repositories/financial-instruments.repository';
import { findPositionByLookup, positionsToFreeze } from '../../../db/repositories/positions.repository';
import {
  checkFreezeAllInstrument,
  checkFreezeTarget,
  checkPositionsToChange,
  FREEZE_ALL_BATCH,
  freezeBatch,
  freezeTransactionCount,
  MAX_FREEZE_BATCHES,
  requireFreezeAuthority,
} from '../../../domain/operations/positions/freeze-position.rules';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { paidBy, resolveFeePayer } from '../fee-payer';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { tokenProgramOf } from './token-movement';

export interface FreezeData {
  /** The positions this write freezes (thaws), by record id and token account address, in transactions of FREEZE_ALL_BATCH. */
  positions: { id: string; address: string }[];
  mint: string;
  authority: string;
  tokenProgram: string;
}

/** The instrument's freeze authority, which the service must be able to sign for (FREEZE_AUTHORITY_NOT_FOUND when it has none). */
async function requiredFreezeAuthoritySigner(em: EntityManager, instrument: FinancialInstrument, field: string): Promise<string> {
  const ref = requireFreezeAuthority(instrument.authorities.freezeAuthority, field);
  return requireSigner(em, ref.accountId, field, 'freeze authority');
}

export function freezeHandler(freeze: boolean): OperationHandler<FreezePositionItemData, FreezeData> {
  return {
    async lookup(em, deps, request) {
      const item = request.itemData;
      const scope = scopeOf(request);
      const field = item.position ? 'itemData.position' : 'itemData.financialInstrument';
      let instrument: FinancialInstrument;
      let one: Position | undefined;
      if (item.position) {
        one = await findPositionByLookup(em, scope, item.position, field);
        checkFreezeTarget(one, freeze, field);
        instrument = await em.findOneOrFail(FinancialInstrument, { id: one.financialInstrumentId });
      } else {
        // Token-2022 freezes per position (spec 2.4); its instrument-wide stop is Pause (Pausable) or a frozen default state.
        instrument = await findInstrumentByLookup(em, scope, item.financialInstrument!, field);
        checkFreezeAllInstrument(instrument, field);
      }
      const authority = await requiredFreezeAuthoritySigner(em, instrument, field);
      const positions = one ? [one] : await positionsToFreeze(em, scope, instrument.id, freeze, FREEZE_ALL_BATCH * MAX_FREEZE_BATCHES);
      checkPositionsToChange(positions.length, freeze);
      const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
      const data: FreezeData = {
        positions: positions.map((p) => ({ id: p.id, address: p.address })),
        mint: instrument.mintAddress,
        authority,
        tokenProgram: tokenProgramOf(instrument),
      };
      return { ...paidBy(feePayer, data, authority), ...(one ? {} : { transactionCount: freezeTransactionCount(positions.length) }) };
    },

    instructions(_request, resolved, part) {
      const data = resolved.data;
      const config = { programAddress: address(data.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
      const authority = createNoopSigner(address(data.authority));
      return freezeBatch(data.positions, part).map((p) => {
        const input = { account: address(p.address), mint: address(data.mint), owner: authority };
        return freeze ? getFreezeAccountInstruction(input, config) : getThawAccountInstruction(input, config);
      });
    },

    async record(em, _request, resolved, outcome, tx, at, part) {
      if (!landed(outcome)) return undefined;
      const data = resolved.data;
      const positions = freezeBatch(data.positions, part);
      for (const position of await em.find(Position, { id: { $in: positions.map((p) => p.id) } })) {
        Object.assign(position, { frozen: freeze, lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
      }
      // Each position's history (Fetch Position History) finds this transaction by its id.
      linkRecords(
        tx,
        positions.map((p) => p.id),
      );
      const [first] = positions;
      return resolved.transactionCount === undefined ? { onchainId: first.address, offchainId: first.id } : undefined;
    },
  };
}
