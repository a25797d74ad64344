/** Position records at the three detail levels and the position reads' answers (the detail levels of docs/behaviour/conventions.md applied). */
import * as t from 'io-ts';
import { onchainIdentifier, optionalOffchainIdentifier, recordIdentifiers } from './account.responses';
import { address, baseUnits, boolean, exactAmount, integer, listOf, nullable, oneOfShapes, strictObject, textEnum, timestamp, uuid } from './building-blocks';
import { tokenAmount } from './financial-instrument.responses';
import { referenceAnswer, transactionResult } from './write.responses';

/** A position's balance: lamports always; amount when the instrument is read with it (details, detailed lists). */
const positionBalance = strictObject(
  'PositionBalance',
  { lamports: baseUnits },
  { amount: exactAmount },
  'lamports: integer base units; amount: the same in UI units (exact decimal), shown where the instrument is read with the position (details and the detailed level).',
);

const compactProps = {
  onchain: strictObject('PositionOnchain', { id: address, lastTransactionAt: nullable(timestamp) }, {}),
  offchain: strictObject('PositionOffchain', { id: uuid, lastTransactionId: nullable(uuid), balance: positionBalance }, {}),
  owner: strictObject('PositionOwner', { onchain: onchainIdentifier, offchain: optionalOffchainIdentifier }, {}),
  financialInstrument: recordIdentifiers,
  status: textEnum(['ACTIVE', 'INACTIVE']),
  frozen: boolean,
  associated: boolean,
};

export const positionCompact = strictObject('PositionCompact', compactProps, {}, 'The compact detail level of a position.');
export type PositionCompactBody = t.TypeOf<typeof positionCompact>;

export const positionDetailed = strictObject(
  'PositionDetailed',
  {
    ...compactProps,
    comments: nullable(t.string),
    code: nullable(t.string),
    name: nullable(t.string),
    creationTransactionId: nullable(uuid),
    creationTransactionAt: nullable(timestamp),
    tenantOrganizationId: uuid,
  },
  {},
  'The detailed level of a position.',
);
export type PositionDetailedBody = t.TypeOf<typeof positionDetailed>;

export const positionLevels = { identifiers: recordIdentifiers, compact: positionCompact, detailed: positionDetailed };

const positionBalanceSide = (name: string, extra: Record<string, t.Mixed>, description: string) =>
  strictObject(name, { ...extra, balance: tokenAmount, uiAmount: nullable(exactAmount) }, {}, description);

export const positionBalanceResponse = strictObject(
  'PositionBalanceResponse',
  {
    position: recordIdentifiers,
    decimals: integer,
    onchain: positionBalanceSide(
      'OnchainPositionBalance',
      { exists: boolean, frozen: nullable(boolean) },
      'Read live from the network; uiAmount under Scaled UI Amount (null without it).',
    ),
    offchain: positionBalanceSide('OffchainPositionBalance', {}, 'As the record keeps it.'),
  },
  {},
);

export const initializePositionResponse = referenceAnswer('newPosition', 'InitializePositionResponse', 'The position and the transaction that initialized it.');
export const updatePositionResponse = referenceAnswer(
  'updatedPosition',
  'UpdatePositionResponse',
  'The updated position; no network transaction (svmTransaction null).',
);

/** Freeze / Unfreeze with allPositions (SPL): every transaction it sent, and how many positions are left. */
export const freezeAllPositionsResponse = strictObject(
  'FreezeAllPositionsResponse',
  { svmTransactions: listOf(transactionResult), remainingPositions: integer },
  {},
  'allPositions: the transactions sent (at most 20 positions each); remainingPositions > 0: repeat with a new idempotency key to go on.',
);
export type FreezeAllPositionsBody = t.TypeOf<typeof freezeAllPositionsResponse>;
export const freezePositionResponse = oneOfShapes(
  [transactionResult, freezeAllPositionsResponse],
  'The transaction result; with allPositions, FreezeAllPositionsResponse.',
);
