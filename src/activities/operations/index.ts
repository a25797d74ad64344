/** Operation handlers by operation name. */
import { closeFinancialInstrumentHandler } from './financial-instruments/close-financial-instrument.handler';
import { createAccountHandler } from './accounts/create-account.handler';
import { createFinancialInstrumentHandler } from './financial-instruments/create-financial-instrument.handler';
import type { OperationHandlers } from './operation-handler';
import { initializePositionHandler } from './positions/initialize-position.handler';
import { updatePositionHandler } from './positions/update-position.handler';
import { freezeHandler } from './positions/freeze-position.handler';
import { burnHandler, mintHandler, tradeHandler, transferHandler } from './positions/movements.handler';
import { inactivatePositionHandler } from './positions/inactivate-position.handler';
import { transferNetworkCurrencyHandler } from './accounts/transfer-network-currency.handler';
import { pauseHandler } from './financial-instruments/pause-financial-instrument.handler';
import { updateFinancialInstrumentHandler } from './financial-instruments/update-financial-instrument.handler';
import { updateAccountHandler } from './accounts/update-account.handler';
import { inactivateAccountHandler } from './accounts/inactivate-account.handler';
import { createAddressLookupTableHandler } from './address-lookup-tables/create-address-lookup-table.handler';
import { extendAddressLookupTableHandler } from './address-lookup-tables/extend-address-lookup-table.handler';
import { updateAddressLookupTableHandler } from './address-lookup-tables/update-address-lookup-table.handler';
import { createDurableNonceAccountsHandler } from './durable-nonces/create-durable-nonce-accounts.handler';
import { createLoanStrategyHandler } from './loans/create-loan-strategy.handler';
import { createLoanHandler } from './loans/create-loan.handler';
import { repayLoanHandler } from './loans/repay-loan.handler';
import { swapCollateralHandler } from './loans/swap-collateral.handler';
import { refinanceLoanHandler } from './loans/refinance-loan.handler';
import { closeLoanHandler } from './loans/close-loan.handler';
import { liquidateLoanHandler } from './loans/liquidate-loan.handler';
import { createOnchainDataSourceHandler } from './oracle-data-sources/create-onchain-data-source.handler';
import { updateOracleDataSourceHandler } from './oracle-data-sources/update-oracle-data-source.handler';
import { refreshOracleDataSourceHandler } from './oracle-data-sources/refresh-oracle-data-source.handler';

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
