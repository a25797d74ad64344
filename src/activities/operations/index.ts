/** Operation handlers by operation name. */
import type { Operation } from '../../domain/write';
import { createAccountHandler } from './create-account.handler';
import { createFinancialInstrumentHandler } from './create-financial-instrument.handler';
import type { OperationHandler } from './operation-handler';

export const operationHandlers: Record<Operation, OperationHandler> = {
  CREATE_ACCOUNT: createAccountHandler,
  CREATE_FINANCIAL_INSTRUMENT: createFinancialInstrumentHandler,
};
