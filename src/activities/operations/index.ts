/** Operation handlers by operation name. */
import { closeFinancialInstrumentHandler } from './close-financial-instrument.handler';
import { createAccountHandler } from './create-account.handler';
import { createFinancialInstrumentHandler } from './create-financial-instrument.handler';
import type { OperationHandlers } from './operation-handler';
import { initializePositionHandler } from './initialize-position.handler';
import { updatePositionHandler } from './update-position.handler';
import { freezeHandler } from './freeze-position.handler';
import { burnHandler, mintHandler, tradeHandler, transferHandler } from './movements.handler';
import { inactivatePositionHandler } from './inactivate-position.handler';
import { transferNetworkCurrencyHandler } from './transfer-network-currency.handler';
import { pauseHandler } from './pause-financial-instrument.handler';
import { updateFinancialInstrumentHandler } from './update-financial-instrument.handler';
import { updateAccountHandler } from './update-account.handler';
import { inactivateAccountHandler } from './inactivate-account.handler';
import { createAddressLookupTableHandler } from './create-address-lookup-table.handler';
import { extendAddressLookupTableHandler } from './extend-address-lookup-table.handler';
import { updateAddressLookupTableHandler } from './update-address-lookup-table.handler';
import { createDurableNonceAccountsHandler } from './create-durable-nonce-accounts.handler';
import { createLoanStrategyHandler } from './create-loan-strategy.handler';
import { createLoanHandler } from './create-loan.handler';
import { repayLoanHandler } from './repay-loan.handler';
import { swapCollateralHandler } from './swap-collateral.handler';
import { refinanceLoanHandler } from './refinance-loan.handler';
import { closeLoanHandler } from './close-loan.handler';
import { liquidateLoanHandler } from './liquidate-loan.handler';
import { createOnchainDataSourceHandler } from './create-onchain-data-source.handler';
import { updateOracleDataSourceHandler } from './update-oracle-data-source.handler';
import { refreshOracleDataSourceHandler } from './refresh-oracle-data-source.handler';

export const operationHandlers: OperationHandlers = {
  CREATE_ACCOUNT: createAccountHandler,
  CREATE_FINANCIAL_INSTRUMENT: createFinancialInstrumentHandler,
  PAUSE_FINANCIAL_INSTRUMENT: pauseHandler(true),
  UNPAUSE_FINANCIAL_INSTRUMENT: pauseHandler(false),
  CLOSE_FINANCIAL_INSTRUMENT: closeFinancialInstrumentHandler,
  UPDATE_FINANCIAL_INSTRUMENT: updateFinancialInstrumentHandler,
  INITIALIZE_POSITION: initializePositionHandler,
  UPDATE_POSITION: updatePositionHandler,
  FREEZE_POSITION: freezeHandler(true),
  UNFREEZE_POSITION: freezeHandler(false),
  MINT: mintHandler,
  BURN: burnHandler,
  TRANSFER: transferHandler,
  TRADE: tradeHandler,
  INACTIVATE_POSITION: inactivatePositionHandler,
  TRANSFER_NETWORK_CURRENCY: transferNetworkCurrencyHandler,
  UPDATE_ACCOUNT: updateAccountHandler,
  INACTIVATE_ACCOUNT: inactivateAccountHandler,
  CREATE_ADDRESS_LOOKUP_TABLE: createAddressLookupTableHandler,
  EXTEND_ADDRESS_LOOKUP_TABLE: extendAddressLookupTableHandler,
  UPDATE_ADDRESS_LOOKUP_TABLE: updateAddressLookupTableHandler,
  CREATE_DURABLE_NONCE_ACCOUNTS: createDurableNonceAccountsHandler,
  CREATE_LOAN_STRATEGY: createLoanStrategyHandler,
  CREATE_LOAN: createLoanHandler,
  REPAY_LOAN: repayLoanHandler,
  SWAP_COLLATERAL: swapCollateralHandler,
  REFINANCE_LOAN: refinanceLoanHandler,
  CLOSE_LOAN: closeLoanHandler,
  LIQUIDATE_LOAN: liquidateLoanHandler,
  CREATE_ONCHAIN_DATA_SOURCE: createOnchainDataSourceHandler,
  UPDATE_ORACLE_DATA_SOURCE: updateOracleDataSourceHandler,
  REFRESH_ORACLE_DATA_SOURCE: refreshOracleDataSourceHandler,
};
