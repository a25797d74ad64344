/** Oracle data source request bodies of the reads (the writes' derive from their declarations: src/api/routes/write-route.ts). */
import { onchainDataSourceItemData } from '../../domain/operations/oracle-data-sources/oracle-data-source.inputs';
import { itemDataBody } from './common.codecs';

export const singleOnchainDataSourceBody = itemDataBody('SingleOnchainDataSourceRequest', onchainDataSourceItemData);
