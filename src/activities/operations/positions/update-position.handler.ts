/** Update Position: its offchain fields (comments, code, name); recorded without a network transaction. */
import { offchainOnly } from '../fee-payer';
import type { UpdatePositionItemData } from '../../../domain/operations/positions/position.inputs';
import { Position } from '../../../db/entities';
import { findPositionByLookup } from '../../../db/repositories/positions.repository';
import { scopeOf, type OperationHandler } from '../operation-handler';

/** What Update Position's lookup resolves: the position's record id. */
export interface UpdatePositionData {
  positionId: string;
}

export const updatePositionHandler: OperationHandler<UpdatePositionItemData, UpdatePositionData> = {
  async lookup(em, deps, request) {
    const item = request.itemData;
    const position = await findPositionByLookup(em, scopeOf(request), item.position, 'itemData.position');
    return offchainOnly(deps.feePayerAddress, { positionId: position.id });
  },
  instructions: () => [],
  async record(em, request, resolved, _outcome, tx) {
    const item = request.itemData;
    const position = await em.findOneOrFail(Position, { id: resolved.data.positionId });
    if (item.comments !== undefined) position.comments = item.comments;
    if (item.code !== undefined) position.code = item.code;
    if (item.name !== undefined) position.name = item.name;
    // The record of a keyed or async write names what it changed (a replayed record step answers it).
    if (tx) tx.accountIds = [position.id];
    return { onchainId: position.address, offchainId: position.id };
  },
};
