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
import { LedgerError } from '../../../domain/errors';
import type { WriteRequest } from '../../../domain/write';

export { MEMO_PROGRAM_V3 } from '../../../domain/operations/positions/movement-instructions';

export const tokenProgramOf = (instrument: FinancialInstrument) => (instrument.version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS);

/**
 * Freeze and unfreeze options work only for Token-2022 instruments with a freeze authority
 * (FREEZE_AUTHORITY_NOT_FOUND naming the first option set, spec 4.3 and its trade rule 2); returns the
 * freeze authority's address when an option is set (null when none is), after checking the service may sign for it. A
 * freeze authority named in the request must be the instrument's (checkNamedAuthority), option or not.
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
  if (given) await checkNamedAuthority(em, { organizationId: request.organizationId, cluster: request.cluster }, instrument, 'freezeAuthority', given, field);
  const set = options.find(([, on]) => on);
  if (!set) return null;
  const ref = instrument.authorities.freezeAuthority;
  if (instrument.version !== 'TOKEN_2022' || !ref) {
    throw new LedgerError('FREEZE_AUTHORITY_NOT_FOUND', `${instrument.mintAddress}: freeze and unfreeze are supported only for TOKEN_2022 instruments with a freeze authority`, set[0]);
  }
  return requireSigner(em, ref.accountId, field, 'freeze authority');
}

/**
 * Moves a position's offchain balance by `delta` base units and records its frozen state after the
 * movement. The balance moves in SQL (`balance + delta`): deltas commute, so concurrent record steps
 * of movements of one position never lose each other's update.
 */
export async function moveBalance(em: EntityManager, positionId: string, delta: bigint, frozenAfter: (frozen: boolean) => boolean, tx: LedgerTransaction | null, at: Date): Promise<void> {
  const position = await em.findOneOrFail(Position, { id: positionId });
  await movePositionBalance(em, positionId, delta);
  Object.assign(position, { frozen: frozenAfter(position.frozen), lastTransactionId: tx?.id ?? null, lastTransactionAt: at });
  if (tx) tx.accountIds = [...new Set([...tx.accountIds, position.id])];
}
