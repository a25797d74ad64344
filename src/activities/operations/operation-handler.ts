/** What each operation supplies to the generic write pipeline (its lookup, its plan, its records), typed by its input. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Instruction } from '@solana/kit';
import type { LedgerTransaction } from '../../db/entities';
import { scopeOf } from '../../db/repositories/accounts.repository';
import type { InputOf, Operation } from '../../domain/operations/registry';
import type { Outcome, Resolved, WriteRequest, WriteResult } from '../../domain/write';
import type { ActivityDeps } from '../deps';

/** A write request as its operation's handler sees it: itemData of the operation's input codec. */
export interface OperationRequest<Input> extends Omit<WriteRequest, 'itemData'> {
  itemData: Input;
}

/** What the handler's lookup resolved, with its own data (JSON-safe: it is kept in history and in the record). */
export interface OperationResolved<Data> extends Omit<Resolved, 'data'> {
  data: Data;
}

export interface OperationHandler<Input = unknown, Data = unknown> {
  /** Resolves lookups and checks the rules that need stored records; idempotent. */
  lookup(em: EntityManager, deps: ActivityDeps, request: OperationRequest<Input>): Promise<OperationResolved<Data>>;
  /** What to tell the caller when the transaction is over the network's size limit. */
  tooLargeHint?: string;
  /** The instructions of one network transaction of the write (`part`, of `resolved.transactionCount`), from the request and what lookup resolved. */
  instructions(request: OperationRequest<Input>, resolved: OperationResolved<Data>, part: number): Instruction[];
  /**
   * Writes the operation's records inside the record step's database transaction. `tx` is the
   * transaction record of `part`; returns the created object's reference.
   */
  record(
    em: EntityManager,
    request: OperationRequest<Input>,
    resolved: OperationResolved<Data>,
    outcome: Outcome | null,
    tx: LedgerTransaction | null,
    at: Date,
    part: number,
  ): Promise<WriteResult['created']>;
  /** After the records of a landed transaction: bring them in line with what the chain now says. */
  reconcile?(em: EntityManager, deps: ActivityDeps, request: OperationRequest<Input>, resolved: OperationResolved<Data>): Promise<void>;
  /** Also reconcile after an offchain-only write (outcome null): e.g. a schedule that follows the record. */
  reconcilesOffchain?: boolean;
  /** Its lookup holds a loan for the write (loan-holds.repository); the record step lets go of it. Other writes hold none: no statement to release one. */
  holdsLoan?: boolean;
  /** An offchain-only write answers its transaction record (FINALIZED, no onchainId) rather than no transaction. */
  answersOffchainRecord?: boolean;
}

/** The transaction reached the network (its record step writes what it did); other outcomes change nothing. */
export const landed = (outcome: Outcome | { status: string } | null): boolean =>
  outcome !== null && ['CONFIRMED', 'FINALIZED', 'SUBMITTED'].includes(outcome.status);

/** A handler per operation, each typed by the operation's input. */
export type OperationHandlers = { [O in Operation]: OperationHandler<InputOf<O>, unknown> };

/**
 * The handler of an operation, as the generic pipeline calls it: the one place where the generic
 * request meets the typed one (the API decoded `itemData` with the operation's own codec before the
 * write started, and history carries it unchanged).
 */
export function handlerOf(handlers: OperationHandlers, operation: Operation): OperationHandler {
  return handlers[operation] as OperationHandler;
}

/** Handlers take the tenant scope from here with the rest of their kit. */
export { scopeOf };
