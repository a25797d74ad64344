/**
 * One request example (operations with a body) and one response example per operation, by
 * operationId, shown in the document beside the schemas. The contract test decodes every request
 * example with the route's body codec and every response example with its response codec, and
 * the OpenAPI linter checks them against the document's schemas.
 */
import { accountExamples } from './account.examples';
import { financialInstrumentExamples } from './financial-instrument.examples';
import { positionExamples } from './position.examples';
import { systemExamples } from './system.examples';
import { transactionExamples } from './transaction.examples';
import { addressLookupTableExamples } from './address-lookup-table.examples';
import { durableNonceExamples } from './durable-nonce.examples';
import { approvalExamples } from './approval.examples';
import { loanExamples } from './loan.examples';
import { oracleDataSourceExamples } from './oracle-data-source.examples';

export interface OperationExample {
  /** The request body as a client sends it (amounts as JSON numbers or decimal text). */
  request?: unknown;
  /** The success answer as the service writes it. */
  response: unknown;
  /** Answers of other documented statuses (e.g. /ready's 503), by status. */
  otherResponses?: Record<string, unknown>;
}

export const operationExamples: Record<string, OperationExample> = {
  ...systemExamples,
  ...accountExamples,
  ...financialInstrumentExamples,
  ...positionExamples,
  ...transactionExamples,
  ...addressLookupTableExamples,
  ...durableNonceExamples,
  ...approvalExamples,
  ...loanExamples,
  ...oracleDataSourceExamples,
};
