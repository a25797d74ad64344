/** Oracle data source request bodies (spec 4.2, 4.5). */
import { createOnchainDataSourceItemData, onchainDataSourceItemData, updateOracleDataSourceItemData } from '../../domain/operations/oracle-data-sources/oracle-data-source.inputs';
import { svmTransactionConfig } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const createOnchainDataSourceBody = strictObject('CreateOnchainDataSourceRequest', { itemData: createOnchainDataSourceItemData }, { svmTransactionConfig, tenancyConfig });
export const updateOracleDataSourceBody = strictObject('UpdateOracleDataSourceRequest', { itemData: updateOracleDataSourceItemData }, { svmTransactionConfig, tenancyConfig });
export const refreshOracleDataSourceBody = strictObject('RefreshOracleDataSourceRequest', { itemData: onchainDataSourceItemData }, { svmTransactionConfig, tenancyConfig });
export const singleOnchainDataSourceBody = strictObject('SingleOnchainDataSourceRequest', { itemData: onchainDataSourceItemData }, { tenancyConfig });
