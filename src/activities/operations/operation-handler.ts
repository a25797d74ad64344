/** What each operation supplies to the generic write pipeline (its lookup, its plan, its records). */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Instruction } from '@solana/kit';
import type { LedgerTransaction } from '../../db/entities';
import type { Outcome, Resolved, WriteRequest, WriteResult } from '../../domain/write';
import type { ActivityDeps } from '../deps';

export interface OperationHandler {
  /** Resolves lookups and checks the rules that need stored records; idempotent. */
  lookup(em: EntityManager, deps: ActivityDeps, request: WriteRequest): Promise<Resolved>;
  /** What to tell the caller when the transaction is over the network's size limit. */
  tooLargeHint?: string;
  /** The instructions of one network transaction of the write (`part`, of `resolved.transactionCount`), from the request and what lookup resolved. */
  instructions(request: WriteRequest, resolved: Resolved, part: number): Instruction[];
  /**
   * Writes the operation's records inside the record step's database transaction. `tx` is the
   * transaction record of `part`; returns the created object's reference.
   */
  record(em: EntityManager, request: WriteRequest, resolved: Resolved, outcome: Outcome | null, tx: LedgerTransaction | null, at: Date, part: number): Promise<WriteResult['created']>;
  /** After the records of a landed transaction: bring them in line with what the chain now says. */
  reconcile?(em: EntityManager, deps: ActivityDeps, request: WriteRequest, resolved: Resolved): Promise<void>;
}
