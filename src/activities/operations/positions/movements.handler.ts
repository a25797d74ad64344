/**
 * Mint, Burn, Transfer and Trade (spec 4.3): every leg is checked before anything is signed (balances
 * run across a trade's legs), then all of them go out in one atomic network transaction.
 */
import type { BurnItemData, MintItemData, TradeItemData, TransferItemData } from '../../../domain/operations/positions/position.inputs';
import { resolveFeePayer } from '../fee-payer';
import { settleFreezes, tradeKinds, type Leg, type TradeDefaults } from '../../../domain/operations/positions/movement.rules';
import {
  legsInstructions,
  legsResolution,
  newPlanContext,
  planBurn,
  type PlanContext,
  planMint,
  type PlannedLeg,
  planTransfer,
  recordLeg,
} from './movement-legs';
import { landed, type OperationHandler } from '../operation-handler';

type Entry = { plan: (ctx: PlanContext) => Promise<PlannedLeg> };

/** What a movement's lookup resolves: its legs, in order (JSON-safe). */
type MovementData = { legs: Leg[] };

function movementsHandler<Input>(
  entriesOf: (item: Input) => { entries: Entry[]; defaults: TradeDefaults },
  tooLargeHint?: string,
): OperationHandler<Input, MovementData> {
  return {
    tooLargeHint,
    async lookup(em, deps, request) {
      const { entries, defaults } = entriesOf(request.itemData);
      const ctx = newPlanContext(em, deps, request, defaults);
      const planned: PlannedLeg[] = [];
      // In order: each leg sees the balances the earlier ones leave.
      for (const entry of entries) planned.push(await entry.plan(ctx));
      settleFreezes(planned.map((p) => p.leg));
      const feePayer = await resolveFeePayer(em, deps, request, request.svmTransactionConfig ?? {});
      return legsResolution(ctx, feePayer, planned, { legs: planned.map((p) => p.leg) });
    },

    instructions: legsInstructions,

    async record(em, request, resolved, outcome, tx, at) {
      if (!landed(outcome)) return undefined;
      for (const leg of resolved.data.legs) await recordLeg(em, request, leg, tx, at);
      return undefined;
    },
  };
}

const single = (entry: Entry) => ({ entries: [entry], defaults: {} });

export const mintHandler = movementsHandler((item: MintItemData) => single({ plan: (ctx) => planMint(ctx, item, 'itemData') }));
export const burnHandler = movementsHandler((item: BurnItemData) => single({ plan: (ctx) => planBurn(ctx, item, 'itemData') }));
export const transferHandler = movementsHandler((item: TransferItemData) => single({ plan: (ctx) => planTransfer(ctx, item, 'itemData') }));

export const tradeHandler = movementsHandler((item: TradeItemData) => {
  const entries = tradeKinds(item.operations).map((kind, i): Entry => {
    const p = `itemData.operations[${i}]`;
    const operation = item.operations[i];
    if (kind === 'mint') return { plan: (ctx) => planMint(ctx, operation.mint!, `${p}.mint`) };
    if (kind === 'burn') return { plan: (ctx) => planBurn(ctx, operation.burn!, `${p}.burn`) };
    return { plan: (ctx) => planTransfer(ctx, operation.transfer!, `${p}.transfer`) };
  });
  return { entries, defaults: { freeze: item.freeze, unfreeze: item.unfreeze } };
}, "Create an address lookup table holding the trade's accounts (POST /api/v1/address-lookup-tables): the organization's writes then reference them by index; or split the trade into several trades (each one is atomic on its own), or trade fewer operations at once.");
