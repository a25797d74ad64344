/** Position records as the API shows them (the spec shows none: the detail levels of docs/behaviour/conventions.md applied). */
import type { FinancialInstrument, Position } from '../../db/entities';
import { fromBaseUnits } from '../../domain/money';
import { exactNumber, type DetailLevel } from './account.presenter';
import type { RecordIdentifiersBody } from '../../domain/responses/account.responses';
import type { PositionCompactBody, PositionDetailedBody } from '../../domain/responses/position.responses';

/** What presentPosition reads at the levels below detailed (bulk reads load only these). */
export const positionFields = {
  identifiers: ['id', 'address'],
  compact: [
    'id',
    'address',
    'lastTransactionAt',
    'lastTransactionId',
    'balance',
    'ownerAddress',
    'ownerAccountId',
    'mintAddress',
    'financialInstrumentId',
    'status',
    'frozen',
    'associated',
  ],
} as const satisfies Partial<Record<DetailLevel, readonly (keyof Position)[]>>;

export function presentPosition(position: Position, level: 'identifiers'): RecordIdentifiersBody;
export function presentPosition(position: Position, level: 'detailed', instrument: FinancialInstrument): PositionDetailedBody;
export function presentPosition(
  position: Position,
  level: DetailLevel,
  instrument?: FinancialInstrument,
): RecordIdentifiersBody | PositionCompactBody | PositionDetailedBody;
export function presentPosition(
  position: Position,
  level: DetailLevel,
  instrument?: FinancialInstrument,
): RecordIdentifiersBody | PositionCompactBody | PositionDetailedBody {
  if (level === 'identifiers') return { onchain: { id: position.address }, offchain: { id: position.id } };
  const units = BigInt(position.balance);
  return {
    onchain: { id: position.address, lastTransactionAt: position.lastTransactionAt ?? null },
    offchain: {
      id: position.id,
      lastTransactionId: position.lastTransactionId ?? null,
      balance: instrument ? { amount: exactNumber(fromBaseUnits(units, instrument.decimals)), lamports: units } : { lamports: units },
    },
    owner: { onchain: { id: position.ownerAddress }, offchain: { id: position.ownerAccountId ?? null } },
    financialInstrument: { onchain: { id: position.mintAddress }, offchain: { id: position.financialInstrumentId } },
    status: position.status,
    frozen: position.frozen,
    associated: position.associated,
    ...(level === 'detailed'
      ? {
          comments: position.comments ?? null,
          code: position.code ?? null,
          name: position.name ?? null,
          creationTransactionId: position.creationTransactionId ?? null,
          creationTransactionAt: position.creationTransactionAt ?? null,
          tenantOrganizationId: position.organizationId,
        }
      : {}),
  };
}
