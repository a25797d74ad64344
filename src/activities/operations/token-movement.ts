/**
 * What Mint, Burn and Transfer share: the freeze rules of spec 4.3, the thaw/freeze/memo instructions
 * around the movement itself, and the offchain balance change of a position.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { TOKEN_2022_PROGRAM_ADDRESS, getFreezeAccountInstruction, getThawAccountInstruction } from '@solana-program/token-2022';
import { getAddMemoInstruction } from '@solana-program/memo';
import { address, createNoopSigner, type Instruction } from '@solana/kit';
import { Position, type FinancialInstrument, type LedgerTransaction } from '../../db/entities';
import type { AccountLookupInput } from '../../domain/inputs/common.inputs';
import { requireSigner } from '../../db/repositories/accounts.repository';
import { movePositionBalance } from '../../db/repositories/positions.repository';
import { checkNamedAuthority } from '../../db/repositories/financial-instruments.repository';
import { LedgerError } from '../../domain/errors';
import type { WriteRequest } from '../../domain/write';

/** The memo program every public cluster has (STACK.md: v3; the client's default v4 is not deployed everywhere). */
export const MEMO_PROGRAM_V3 = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';

export const tokenProgramOf = (instrument: FinancialInstrument) => (instrument.version === 'SPL' ? TOKEN_PROGRAM_ADDRESS : TOKEN_2022_PROGRAM_ADDRESS);

/**
 * Freeze and unfreeze options work only for Token-2022 instruments with a freeze authority
 * (FREEZE_AUTHORITY_NOT_FOUND naming the first option set, spec 4.3 and its trade rule 2); returns the
 * freeze authority's address when an option is set, after checking the service may sign for it. A
 * freeze authority named in the request must be the instrument's (checkNamedAuthority), option or not.
 */
export async function freezeAuthorityFor(
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
  return requireSigner(em, ref.accountId, request.organizationId, request.organizationExternalId, field, 'freeze authority');
}

/** A frozen position moves only when the request thaws it in the same transaction (`option` is the field path of the unfreeze flag). */
export function requireUnfrozen(position: Pick<Position, 'frozen' | 'address'>, unfreeze: boolean | undefined, option: string, field: string): void {
  if (position.frozen && !unfreeze) throw new LedgerError('POSITION_FROZEN', `the position ${position.address} is frozen; set ${option} to thaw it in the same transaction`, field);
}

export interface AroundMovement {
  tokenProgram: string;
  mint: string;
  freezeAuthority: string | null;
  /** Token accounts thawed before the movement and frozen after it. */
  thaw: string[];
  freeze: string[];
  memo: string | null;
}

/** Thaw → the movement → freeze → memo, in one transaction. */
export function aroundMovement(around: AroundMovement, movement: (config: { programAddress: typeof TOKEN_2022_PROGRAM_ADDRESS }) => Instruction): Instruction[] {
  const config = { programAddress: address(around.tokenProgram) as typeof TOKEN_2022_PROGRAM_ADDRESS };
  const mint = address(around.mint);
  const owner = () => createNoopSigner(address(around.freezeAuthority!));
  return [
    ...around.thaw.map((account) => getThawAccountInstruction({ account: address(account), mint, owner: owner() }, config)),
    movement(config),
    ...around.freeze.map((account) => getFreezeAccountInstruction({ account: address(account), mint, owner: owner() }, config)),
    ...(around.memo ? [getAddMemoInstruction({ memo: around.memo }, { programAddress: address(MEMO_PROGRAM_V3) as never })] : []),
  ];
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
