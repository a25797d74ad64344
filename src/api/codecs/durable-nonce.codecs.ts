/** Durable nonce account request bodies (spec 4.2). */
import { createDurableNonceAccountsItemData, durableNonceAccountDetailsItemData } from '../../domain/operations/durable-nonces/durable-nonce.inputs';
import { svmTransactionConfig } from '../../domain/inputs/common.inputs';
import { strictObject } from '../../domain/inputs/primitives';
import { tenancyConfig } from './common.codecs';

export const createDurableNonceAccountsBody = strictObject('CreateDurableNonceAccountsRequest', { itemData: createDurableNonceAccountsItemData }, { svmTransactionConfig, tenancyConfig });

export const durableNonceAccountDetailsBody = strictObject('DurableNonceAccountDetailsRequest', { itemData: durableNonceAccountDetailsItemData }, { tenancyConfig });
