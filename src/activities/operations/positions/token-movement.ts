/**
 * What the token writes share and needs stored records: the token program of an instrument, the
 * freeze authority the freeze options sign with (spec 4.3), and the offchain balance change of a
 * position. The pure rules and instructions are in src/domain/operations/movement*.ts.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022';
import { Position, type FinancialInstrument, type LedgerTransaction } from '../../../db/entities';
import type { AccountLookupInput } from '../../../domain/inputs/common.inputs';
import { requireSigner } from '../../../db/repositories/accounts.repository';
import { movePositionBalance } from '../../../db/repositories/positions.repository';
import { checkNamedAuthority } from '../../../db/repositories/financial-instruments.repository';
import { freezeOptionAuthority } from '../../../domain/operations/positions/movement.rules';
import { linkRecords } from '../../../db/repositories/transaction-records.repository';
import { addBalanceMove } from '../../../domain/finality';
import type { WriteRequest } from '../../../domain/write';
import { scopeOf } from '../operation-handler';

export { MEMO_PROGRAM_V3 } from '../../../domain/operations/positions/movement-instructions';

export const tokenProgramOf = (instrument: FinancialInstrument) => (instrument.version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS);

/**
 * The freeze authority's address when a freeze option is set (the rule: freezeOptionAuthority; null
 * when none is), after checking the service may sign for it. A freeze authority named in the request
 * must be the instrument's (checkNamedAuthority), option or not.
 */
export async function freezeOptionSigner(
  em: EntityManager,
  request: WriteRequest,
  instrument: FinancialInstrument,
  options: [field: string, on: boolean | undefined][],
  given: AccountLookupInput | undefined,
  field: string,
): Promise<string | null> {
  // A named freeze authority must be the instrument's, whether or not an option uses it.
  if (given) await checkNamedAuthority(em, scopeOf(request), instrument, 'freezeAuthority', given, field);
  const ref = freezeOptionAuthority(
    { version: instrument.version, mintAddress: instrument.mintAddress, freezeAuthority: instrument.authorities.freezeAuthority },
    options,
  );
  return ref ? requireSigner(em, ref.accountId, field, 'freeze authority') : null;
}

/**
 * Moves a position's offchain balance by `delta` base units and records its frozen state after the
 * movement. The balance moves in SQL (`balance + delta`): deltas commute, so concurrent record steps
 * of movements of one position never lose each other's update. `position`: its id, or its address
 * in the request's scope. Returns the position's id.
 *
 * One statement (balance, frozen state and last transaction together) when no position record is
 * loaded in `em`; otherwise through the loaded record, so its pending changes (a reopened
 * destination) and these never overwrite each other at the flush.
 */
export async function moveBalance(
  em: EntityManager,
  position: string | { address: string; scope: { organizationId: string; cluster: string } },
  delta: bigint,
  frozenAfter: (frozen: boolean) => boolean,
  tx: LedgerTransaction | null,
  at: Date,
): Promise<string> {
  const loaded = em.getUnitOfWork().getIdentityMap().getStore(em.getMetadata(Position)).size > 0;
  let id: string;
  if (loaded) {
    const found = await em.findOneOrFail(Position, typeof position === 'string' ? { id: position } : { ...position.scope, address: position.address });
    await movePositionBalance(em, found.id, delta);
    Object.assign(found, { frozen: frozenAfter(found.frozen), lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
    id = found.id;
  } else {
    const byId = typeof position === 'string';
    const [row] = await em.getConnection().execute<{ id: string }[]>(
      `update position set balance = balance + ?, frozen = case when frozen then ? else ? end, last_transaction_id = ?, last_transaction_at = ?, updated_at = ?
       where ${byId ? 'id = ?' : 'organization_id = ? and cluster = ? and address = ?'} returning id`,
      [
        delta.toString(),
        frozenAfter(true),
        frozenAfter(false),
        tx?.id ?? null,
        at,
        at,
        ...(byId ? [position] : [position.scope.organizationId, position.scope.cluster, position.address]),
      ],
      'all',
      em.getTransactionContext(),
    );
    if (!row) throw new Error(`no position record ${byId ? position : `at ${position.address}`}`);
    id = row.id;
  }
  // Kept on the record (written with it) to undo if the transaction leaves the chain (docs/finality.md).
  if (tx) tx.balanceMoves = addBalanceMove(tx.balanceMoves, { kind: 'POSITION', id, delta });
  linkRecords(tx, [id]);
  return id;
}
