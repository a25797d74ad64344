/**
 * Inactivate Position (spec 3 and 4.3): the remaining balance burned or moved, a frozen Token-2022
 * position thawed (unfreezeIfNeeded), then the token account closed with its rent refunded to the fee
 * payer or a destination — one transaction; the record becomes INACTIVE (Initialize Position reopens it).
 */
import { getCloseAccountInstruction, getThawAccountInstruction, type TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import type { InactivatePositionItemData } from '../../../domain/operations/positions/position.inputs';
import { FinancialInstrument, Position } from '../../../db/entities';
import { findAccountByLookup, offPlatformAddress, requireSigner } from '../../../db/repositories/accounts.repository';
import { findPositionByLookup } from '../../../db/repositories/positions.repository';
import { LedgerError } from '../../../domain/errors';
import {
  asInactivationError,
  checkRefundDestination,
  remainderDisposal,
  thawBeforeClose,
} from '../../../domain/operations/positions/inactivate-position.rules';
import { checkPositionActive } from '../../../domain/operations/positions/position.rules';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { signerSet } from '../../../domain/write';
import { resolveFeePayer } from '../fee-payer';
import { legInstructions } from '../../../domain/operations/positions/movement-instructions';
import type { Leg } from '../../../domain/operations/positions/movement.rules';
import { newPlanContext, onchainBalance, planBurn, planTransfer, recordLegs, type PlannedLeg } from './movement-legs';
import { landed, scopeOf, type OperationHandler } from '../operation-handler';
import { freezeOptionSigner, tokenProgramOf } from './token-movement';

/** What Inactivate Position's lookup resolves (JSON-safe). */
export interface InactivatePositionData {
  positionId: string;
  position: string;
  mint: string;
  owner: string;
  tokenProgram: string;
  refundTo: string;
  /** The freeze authority thawing a frozen, empty position before the close (a leg thaws a non-empty one). */
  thawWith: string | null;
  legs: Leg[];
}

async function asThisPayload(plan: Promise<PlannedLeg>): Promise<PlannedLeg> {
  try {
    return await plan;
  } catch (error) {
    throw error instanceof LedgerError ? asInactivationError(error) : error;
  }
}

export const inactivatePositionHandler: OperationHandler<InactivatePositionItemData, InactivatePositionData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const f = 'itemData.positionToInactivate';
    const scope = scopeOf(request);
    const position = await findPositionByLookup(em, scope, item.positionToInactivate, f);
    checkPositionActive(position, f);
    const instrument = await em.findOneOrFail(FinancialInstrument, { id: position.financialInstrumentId });
    // The request's own rules (validateInactivatePosition) ran before the write.
    const unfreeze = thawBeforeClose(position, item);
    const freezeAuthority = await freezeOptionSigner(
      em,
      request,
      instrument,
      [['itemData.unfreezeIfNeeded', unfreeze]],
      item.freezeAuthority,
      'itemData.freezeAuthority',
    );

    const ctx = newPlanContext(em, deps, request, {});
    const remaining = await onchainBalance(ctx, position);
    const self = { position: { offchainId: position.id }, ...(item.freezeAuthority ? { freezeAuthority: item.freezeAuthority } : {}) };
    const legs: PlannedLeg[] = [];
    const disposal = remainderDisposal(item, remaining, instrument.decimals);
    if (disposal.kind === 'burn') legs.push(await asThisPayload(planBurn(ctx, { burnFrom: self, burnEntireBalance: true, unfreeze }, 'itemData')));
    if (disposal.kind === 'transfer') {
      legs.push(
        await asThisPayload(planTransfer(ctx, { source: self, destination: disposal.to, transferEntireBalance: true, unfreezeSource: unfreeze }, 'itemData')),
      );
    }
    const owner = await requireSigner(em, position.ownerAccountId, `${f}.owner`, 'owner');
    const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
    let refundTo = feePayer.address;
    const destination = item.refundNetworkCurrrencyDestination;
    if (destination)
      refundTo = destination.offPlatform
        ? offPlatformAddress(destination, 'itemData.refundNetworkCurrrencyDestination')
        : (await findAccountByLookup(em, scope, destination, 'itemData.refundNetworkCurrrencyDestination')).address;
    checkRefundDestination(refundTo, position.address);

    const data: InactivatePositionData = {
      positionId: position.id,
      position: position.address,
      mint: instrument.mintAddress,
      owner,
      tokenProgram: tokenProgramOf(instrument),
      refundTo,
      thawWith: legs.length === 0 && unfreeze ? freezeAuthority : null,
      legs: legs.map((l) => l.leg),
    };
    return {
      needsTransaction: true,
      feePayer: feePayer.address,
      signers: signerSet(
        feePayer.address,
        owner,
        freezeAuthority ? [freezeAuthority] : [],
        legs.flatMap((l) => l.signers),
      ),
      debits: legs.flatMap((l) => l.debits),
      webhooks: feePayer.webhooks,
      data,
    };
  },

  instructions(_request, resolved) {
    const d = resolved.data;
    const config = { programAddress: address(d.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
    const out: Instruction[] = [];
    if (d.thawWith)
      out.push(getThawAccountInstruction({ account: address(d.position), mint: address(d.mint), owner: createNoopSigner(address(d.thawWith)) }, config));
    out.push(...d.legs.flatMap((leg) => legInstructions(leg, resolved.feePayer)));
    out.push(getCloseAccountInstruction({ account: address(d.position), destination: address(d.refundTo), owner: createNoopSigner(address(d.owner)) }, config));
    return out;
  },

  async record(em, request, resolved, outcome, tx, at) {
    if (!landed(outcome)) return undefined;
    const d = resolved.data;
    await recordLegs(em, request, d.legs, tx, at);
    const position = await em.findOneOrFail(Position, { id: d.positionId });
    Object.assign(position, { status: 'INACTIVE', frozen: false, balance: '0', lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
    linkRecords(tx, [position.id]);
    return { onchainId: d.position, offchainId: d.positionId };
  },
};
