/**
 * Every write operation, declared once: the shape of its itemData (the io-ts codec the API validates
 * with and workflow history carries) and its own rules on the request (`validate`: pure, run by the
 * API before any lookup). The operation list and the `Operation` type derive from here; the handler
 * of each (lookups, records: src/activities/operations) and its route are typed by it.
 */
import type * as t from 'io-ts';
import { accountOperations } from './accounts/accounts.operations';
import { positionOperations } from './positions/positions.operations';
import { addressLookupTableOperations } from './address-lookup-tables/address-lookup-tables.operations';
import type { ValidationContext } from './define-operation';
import { loanOperations } from './loans/loans.operations';
import { oracleDataSourceOperations } from './oracle-data-sources/oracle-data-sources.operations';
import { financialInstrumentOperations } from './financial-instruments/financial-instruments.operations';
import { durableNonceOperations } from './durable-nonces/durable-nonces.operations';

export type { ValidationContext } from './define-operation';

interface Declaration<C extends t.Mixed> {
  input: C;
  /** The operation's rules on the request alone; throws VALIDATION_ERROR or FORBIDDEN naming the field. */
  validate?: (item: t.TypeOf<C>, context: ValidationContext) => void;
}

export const operationRegistry = {
  ...accountOperations,
  ...financialInstrumentOperations,
  ...positionOperations,
  ...addressLookupTableOperations,
  ...durableNonceOperations,
  ...loanOperations,
  ...oracleDataSourceOperations,
};

export type Operation = keyof typeof operationRegistry;
/** The itemData an operation's write carries. */
export type InputOf<O extends Operation> = t.TypeOf<(typeof operationRegistry)[O]['input']>;
export const operations = Object.keys(operationRegistry) as Operation[];

/** Runs the operation's own rules on a decoded itemData (nothing when it has none). */
export function validateInput<O extends Operation>(operation: O, item: InputOf<O>, context: ValidationContext): void {
  const declaration: Declaration<t.Mixed> = operationRegistry[operation];
  declaration.validate?.(item, context);
}
