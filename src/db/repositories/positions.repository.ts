/** Position lookups (spec 2.1): the position's own account, or its owner and instrument (the associated account). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { FinancialInstrument, Position } from '../entities';
import { notFound, validationError } from '../../domain/errors';
import type { PositionLookupInput } from '../../domain/operations/positions/position.inputs';
import { findAccountByLookup, type TenantScope } from './accounts.repository';
import { checkPositionLookupAuthorities, findInstrumentByLookup } from './financial-instruments.repository';

export async function findPositionByLookup(em: EntityManager, scope: TenantScope, lookup: PositionLookupInput, field: string): Promise<Position> {
  const where: Record<string, unknown> = { organizationId: scope.organizationId, cluster: scope.cluster };
  if (lookup.position?.offchainId) where.id = lookup.position.offchainId;
  if (lookup.position?.onchainId) where.address = lookup.position.onchainId;
  let instrument: FinancialInstrument | undefined;
  if (!lookup.position) {
    if (!lookup.owner || !lookup.financialInstrument) throw validationError(field, `${field} needs position, or owner and financialInstrument`);
    instrument = await findInstrumentByLookup(em, scope, lookup.financialInstrument, `${field}.financialInstrument`);
    where.financialInstrumentId = instrument.id;
    where.ownerAddress = lookup.owner.offPlatform ? lookup.owner.onchainId : (await findAccountByLookup(em, scope, lookup.owner, `${field}.owner`)).address;
    where.associated = true;
  } else if (!lookup.position.offchainId && !lookup.position.onchainId) {
    throw validationError(`${field}.position`, `${field}.position needs onchainId or offchainId`);
  }
  const found = await em.findOne(Position, where);
  if (!found) throw notFound(field, `${field}: no such position`);
  // Authorities the lookup names must be the instrument's (every operation that takes a position lookup).
  if (lookup.mintAuthority || lookup.freezeAuthority) {
    await checkPositionLookupAuthorities(
      em,
      scope,
      instrument ?? (await em.findOneOrFail(FinancialInstrument, { id: found.financialInstrumentId })),
      lookup,
      field,
    );
  }
  return found;
}

/** The active positions of an instrument not yet in the wanted frozen state, oldest id first (a stable batch order). */
export function positionsToFreeze(em: EntityManager, scope: TenantScope, financialInstrumentId: string, freeze: boolean, limit: number): Promise<Position[]> {
  return em.find(Position, { ...scope, financialInstrumentId, status: 'ACTIVE', frozen: !freeze }, { orderBy: { id: 'asc' }, limit });
}

/** How many active positions of an instrument are not yet in the wanted frozen state. */
export function countPositionsToFreeze(em: EntityManager, scope: TenantScope, financialInstrumentId: string, freeze: boolean): Promise<number> {
  return em.count(Position, { ...scope, financialInstrumentId, status: 'ACTIVE', frozen: !freeze });
}

export type NewPosition = Pick<
  Position,
  'id' | 'organizationId' | 'cluster' | 'address' | 'ownerAddress' | 'financialInstrumentId' | 'mintAddress' | 'associated' | 'status' | 'frozen' | 'balance'
> & { ownerAccountId: string | null; lastTransactionId: string | null; creationTransactionId: string | null; at: Date };

/**
 * Inserts a position record unless one already holds its address (a racing write, e.g. a transfer
 * that opened the destination, got there first); returns the id of the record that holds it. A
 * plain insert would fail the record step on the unique index while the chain has moved.
 */
export async function insertPosition(em: EntityManager, row: NewPosition): Promise<string> {
  const inserted = await em.getConnection().execute<{ id: string }[]>(
    `insert into position (id, organization_id, cluster, address, owner_address, owner_account_id, financial_instrument_id, mint_address, associated, status, frozen, balance,
       last_transaction_id, last_transaction_at, creation_transaction_id, creation_transaction_at, created_at, updated_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (organization_id, cluster, address) do nothing returning id`,
    [
      row.id,
      row.organizationId,
      row.cluster,
      row.address,
      row.ownerAddress,
      row.ownerAccountId,
      row.financialInstrumentId,
      row.mintAddress,
      row.associated,
      row.status,
      row.frozen,
      row.balance,
      row.lastTransactionId,
      row.at,
      row.creationTransactionId,
      row.at,
      row.at,
      row.at,
    ],
    'all',
    em.getTransactionContext(),
  );
  if (inserted.length) return inserted[0].id;
  const existing = await em.findOneOrFail(Position, { organizationId: row.organizationId, cluster: row.cluster, address: row.address });
  return existing.id;
}

/** Moves a position's offchain balance by `delta` base units in SQL (`balance + delta`): deltas commute, so concurrent record steps never lose each other's update. */
export async function movePositionBalance(em: EntityManager, positionId: string, delta: bigint): Promise<void> {
  await em.getConnection().execute('update position set balance = balance + ? where id = ?', [delta.toString(), positionId], 'run', em.getTransactionContext());
}
