/** Examples of the financial instrument operations. */
import { confirmedTransaction, identifiers, ids, instrumentCompact, instrumentDetailed } from './example-values';
import type { OperationExample } from './operation-examples';

const authority = { offchainId: ids.authority.offchainId };
const config = { svmTransactionConfig: { feePayer: { offchainId: ids.treasury.offchainId } } };

export const financialInstrumentExamples: Record<string, OperationExample> = {
  createFinancialInstrument: {
    request: {
      itemData: {
        version: 'TOKEN_2022',
        mintAccount: {
          managed: true,
          offchainReferences: { type: 'ASSET_TOKEN', name: 'Acme 2029 notes', newAlId: { financialInstrumentType: 'CORPORATE_BOND' } },
        },
        mintAuthority: authority,
        updateAuthority: authority,
        freezeAuthority: authority,
        permanentDelegateAuthority: authority,
        onchainData: { decimals: 6, symbol: 'ACB29', name: 'Acme Corp 4.25% 2029', simpleCustomMetadata: { isin: 'US0000000AB1' } },
        offchainData: { description: 'Senior unsecured notes, semi-annual coupon' },
        defaultPositionState: 'INITIALIZED',
      },
      ...config,
    },
    response: { newFinancialInstrument: ids.instrument, svmTransaction: confirmedTransaction },
  },
  fetchFinancialInstruments: {
    request: {
      itemQuery: { limit: 20, filter: [{ fieldName: 'version', filterValues: [{ dataType: 'TEXT', filterType: 'EQUALS', valueString: 'TOKEN_2022' }] }] },
    },
    response: { count: 1, items: [instrumentCompact] },
  },
  fetchFinancialInstrumentDetails: {
    request: { itemData: { financialInstrument: { onchainId: ids.instrument.onchainId } } },
    response: instrumentDetailed,
  },
  pauseFinancialInstrument: {
    request: { itemData: { financialInstrument: { offchainId: ids.instrument.offchainId } }, ...config },
    response: confirmedTransaction,
  },
  unpauseFinancialInstrument: {
    request: { itemData: { financialInstrument: { offchainId: ids.instrument.offchainId } }, ...config },
    response: confirmedTransaction,
  },
  updateFinancialInstrument: {
    request: {
      itemData: {
        financialInstrument: { offchainId: ids.instrument.offchainId },
        onchainData: { simpleCustomMetadata: { couponDates: '03-01,09-01' } },
        comments: 'Coupon dates added',
      },
      ...config,
    },
    response: { updatedFinancialInstrument: ids.instrument, svmTransaction: confirmedTransaction },
  },
  closeFinancialInstrument: {
    request: {
      itemData: { financialInstrument: { offchainId: ids.instrument.offchainId }, refundDestination: { offchainId: ids.treasury.offchainId } },
      ...config,
    },
    response: confirmedTransaction,
  },
  fetchFinancialInstrumentCirculatingSupply: {
    request: { itemData: { financialInstrument: { offchainId: ids.instrument.offchainId } } },
    response: {
      financialInstrument: identifiers(ids.instrument),
      decimals: 6,
      circulatingSupply: { amount: 1000000.000001, lamports: 1000000000001 },
      uiAmount: null,
    },
  },
  tokenExtensionsCalculator: {
    request: {
      extensions: ['PERMANENT_DELEGATE', 'PAUSABLE'],
      metadata: { name: 'Acme Corp 4.25% 2029', symbol: 'ACB29', uri: 'https://assets.acme.example/acb29.json' },
    },
    response: { mintAccountSize: 555, estimatedRent: { amount: 0.00475416, lamports: 4754160 } },
  },
};
